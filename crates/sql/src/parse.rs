//! Statements from text. `sqlparser` parses most of them; the utility
//! statements it does not read in PostgreSQL's syntax (`VACUUM
//! [ANALYZE] t`, `ANALYZE t`, `COPY t FROM STDIN WITH (FREEZE ON)`) are
//! parsed here from its tokens. The text is split into statements at the
//! top-level semicolons of the token stream (a semicolon inside a string
//! or a quoted name is part of its token).

use crate::copy_format::{self, Forced, Format};
use crate::error::SqlError;
use crate::names;
use crate::position::{self, Text};
use sqlparser::ast::{Ident, ObjectName, ObjectNamePart, Statement};
use sqlparser::dialect::{Dialect, PostgreSqlDialect, Precedence};
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan, Tokenizer, Whitespace, Word};

/// One parsed statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    Sql(Box<Statement>),
    Vacuum(Vacuum),
    Copy(Copy),
    /// `RESET name` or `RESET ALL` (`"all"`), the name lower case
    /// (a custom one's dotted: `app.user_id`).
    Reset(String),
    /// `CHECKPOINT`.
    Checkpoint,
    /// `ALTER TABLE t ENABLE | DISABLE | [NO] FORCE ROW LEVEL SECURITY`
    /// (sqlparser has no FORCE).
    AlterRowSecurity(crate::policy_statements::AlterRowSecurity),
    /// `SET [SESSION | LOCAL] SESSION AUTHORIZATION name | DEFAULT`
    /// (`role` none) (sqlparser has none).
    SetSessionAuthorization {
        role: Option<String>,
        local: bool,
    },
    /// `GRANT role TO role`, `REVOKE [ADMIN OPTION FOR] role FROM role`,
    /// `ALTER GROUP g ADD | DROP USER u` (sqlparser reads none).
    RoleGrant(crate::role_statements::RoleGrant),
    /// `GRANT | REVOKE ... ON FUNCTION | PROCEDURE | ROUTINE ...` and `ON
    /// ALL FUNCTIONS | PROCEDURES | ROUTINES IN SCHEMA ...` (sqlparser
    /// reads one function alone).
    RoutineGrant(crate::routine_privileges::RoutineGrant),
    /// `REVOKE GRANT OPTION FOR privileges ON ...` of a relation or a
    /// schema (sqlparser reads no GRANT OPTION FOR): the REVOKE without
    /// the three words.
    RevokeGrantOption(Box<Statement>),
    /// `SET CONSTRAINTS ...` (sqlparser has none).
    SetConstraints(crate::deferred::SetConstraints),
    /// `ALTER SEQUENCE` (sqlparser has none).
    AlterSequence(crate::sequences::Alter),
    /// `ALTER TABLE t ALTER [COLUMN] c DROP EXPRESSION [IF EXISTS]`
    /// (sqlparser has none).
    DropExpression(DropExpression),
    /// An ALTER TABLE whose actions include `ALTER [COLUMN] c DROP
    /// IDENTITY | SET GENERATED ... | SET option | RESTART ...` (sqlparser
    /// has none): `alter_identity.rs`.
    AlterIdentity(crate::alter_identity::AlterIdentity),
    /// `COMMENT ON ... IS ...` (sqlparser's takes tables and columns only).
    Comment(Comment),
    /// `REINDEX INDEX | TABLE [CONCURRENTLY] name` (sqlparser has none).
    Reindex(Reindex),
    /// `DROP INDEX CONCURRENTLY [IF EXISTS] name [RESTRICT]` (sqlparser
    /// reads no CONCURRENTLY): the DROP INDEX without it, run outside a
    /// transaction block only.
    DropIndexConcurrently(Box<Statement>),
    /// `CLUSTER [VERBOSE] [table [USING index]]` (sqlparser has none).
    Cluster(Cluster),
    /// `LOCK [TABLE] ...` (sqlparser reads MySQL's `LOCK TABLES`).
    Lock(crate::lock_table::Lock),
    /// `ALTER TABLE table CLUSTER ON index` and `ALTER TABLE table SET
    /// WITHOUT CLUSTER` (`index` none) (sqlparser has neither).
    ClusterOn(ClusterOn),
    /// `ALTER TABLE t ALTER CONSTRAINT name [NOT] DEFERRABLE [INITIALLY
    /// ...]` (sqlparser has none).
    AlterConstraint(AlterConstraint),
    /// `ALTER TABLE t [NO] INHERIT parent` (sqlparser has neither).
    Inherit(crate::inheritance::alter::Inherit),
    SetLogged(crate::set_logged::SetLogged),
    /// `CREATE UNLOGGED SEQUENCE ...` (`unlogged.rs`): the CREATE
    /// SEQUENCE as sqlparser reads it without the word.
    CreateUnloggedSequence(Box<Statement>),
    /// `CREATE MATERIALIZED VIEW ... AS query` (sqlparser's statement)
    /// and whether `WITH NO DATA` left it unpopulated (sqlparser reads no
    /// `WITH [NO] DATA`).
    CreateMatview {
        create: Box<Statement>,
        data: bool,
    },
    /// `REFRESH MATERIALIZED VIEW` (sqlparser has none).
    Refresh(Refresh),
    /// `CREATE TABLE ... AS EXECUTE name(args) [WITH [NO] DATA]`
    /// (sqlparser has none): the CREATE TABLE AS, its query a stand-in
    /// the prepared statement's replaces (`Session::create_as_execute`),
    /// the EXECUTE, and whether the table is filled.
    CreateAsExecute {
        create: Box<Statement>,
        execute: Box<Statement>,
        data: bool,
    },
    /// `ALTER [MATERIALIZED] VIEW name RENAME ...` and `ALTER VIEW name
    /// ALTER [COLUMN] c SET DEFAULT e | DROP DEFAULT`, read as sqlparser's
    /// ALTER TABLE of the same operation, which must name a relation of
    /// that kind (`matviews::alter`).
    AlterView {
        alter: Box<Statement>,
        materialized: bool,
    },
    /// `ALTER VIEW` (or `ALTER TABLE`) `... SET (...) | RESET (...) | SET
    /// SCHEMA s | OWNER TO r` (`view_options.rs`).
    AlterViewOptions(crate::view_options::Alter),
    /// `DO [LANGUAGE plpgsql] 'body'` (sqlparser has none), its body
    /// parsed (`plpgsql/parse.rs`).
    Do(Box<crate::plpgsql::parse::Block>),
    /// `CREATE [OR REPLACE] PROCEDURE` (sqlparser reads SQL Server's),
    /// read as the CREATE FUNCTION of the same clauses (`procedures.rs`),
    /// and the statements of its `BEGIN ATOMIC ... END` body, if it has
    /// one (sqlparser reads none).
    CreateProcedure {
        create: Box<Statement>,
        atomic: Option<String>,
    },
    /// `CREATE DOMAIN` (sqlparser's reads no NOT NULL): `domains.rs`.
    CreateDomain(Box<crate::domains::Create>),
    /// `ALTER DOMAIN` (sqlparser has none): `domains.rs`.
    AlterDomain(Box<crate::domains::Alter>),
    /// `CREATE [OR REPLACE] AGGREGATE` (sqlparser has none):
    /// `user_aggregates.rs`.
    CreateAggregate(Box<crate::user_aggregates::Create>),
    /// `DROP AGGREGATE` (sqlparser has none): `user_aggregates.rs`.
    DropAggregate(crate::user_aggregates::Drop),
    /// `CREATE [OR REPLACE] TRIGGER ...` (sqlparser's statement) and the
    /// arguments of its `EXECUTE FUNCTION f(args)`, which sqlparser reads
    /// as argument types (`trigger_args`).
    CreateTrigger {
        create: Box<Statement>,
        args: Vec<String>,
    },
    /// `CREATE [OR REPLACE] RULE` (sqlparser has none):
    /// `rule_statements.rs`.
    CreateRule(Box<crate::rule_statements::Create>),
    /// `DROP RULE` or `ALTER RULE ... RENAME TO`: `rule_statements.rs`.
    RuleNamed(crate::rule_statements::Named),
    /// `ALTER TRIGGER name ON table RENAME TO new` (sqlparser has none).
    RenameTrigger(crate::trigger_statements::Rename),
    /// `BEGIN`, `START TRANSACTION`, `SET TRANSACTION` or `SET SESSION
    /// CHARACTERISTICS AS TRANSACTION` whose modes name `[NOT] DEFERRABLE`
    /// (sqlparser reads none): the statement without it, and whether it
    /// was DEFERRABLE (`transaction_modes.rs`).
    TransactionModes {
        statement: Box<Statement>,
        deferrable: bool,
    },
    /// `PREPARE TRANSACTION 'gid'` (sqlparser has none): `prepared_xacts.rs`.
    PrepareTransaction(String),
    /// `COMMIT PREPARED 'gid'` (`commit`) or `ROLLBACK PREPARED 'gid'`.
    FinishPrepared {
        gid: String,
        commit: bool,
    },
    /// `DECLARE name ... CURSOR ... FOR query` (`cursors/parse.rs`).
    Declare(Box<crate::cursors::parse::Declare>),
    /// `FETCH` or `MOVE` (`cursors/parse.rs`).
    Fetch(crate::cursors::parse::Fetch),
    /// `CLOSE name` or `CLOSE ALL` (`None`).
    Close(Option<String>),
    /// `CREATE TABLE ... PARTITION BY ...` or `... PARTITION OF parent
    /// ...` (`partitions/syntax.rs`): the statement without those clauses.
    CreatePartitioned {
        create: Box<Statement>,
        spec: Box<crate::partitions::TableSpec>,
    },
    /// A CREATE TABLE (`Sql` or `CreatePartitioned`) with `LIKE source
    /// ...` clauses in its list, which sqlparser reads as a column named
    /// `like` (`create_like.rs`): the statement without them.
    CreateLike {
        create: Box<Parsed>,
        likes: Vec<crate::create_like::Like>,
    },
    /// `CREATE SCHEMA ... element ...` (sqlparser reads no elements):
    /// the CREATE SCHEMA and its elements in the order they run
    /// (`schema_elements.rs`).
    CreateSchema {
        create: Box<Statement>,
        elements: Vec<Parsed>,
    },
    /// `ALTER TABLE parent ATTACH PARTITION child bound` (`bound` some)
    /// or `DETACH PARTITION child`.
    AttachPartition {
        parent: String,
        child: String,
        bound: Option<Box<crate::partitions::BoundSpec>>,
    },
}

/// `CREATE SCHEMA` with elements (`spanned[at..]`): the header is
/// sqlparser's statement, each element a statement of its own
/// (`schema_elements.rs`).
fn create_schema(
    mut spanned: Vec<TokenWithSpan>,
    at: usize,
    place: &Place<'_>,
) -> Result<Parsed, SqlError> {
    let texts = crate::schema_elements::texts(&spanned, at, place.text);
    spanned.truncate(at);
    let create = parse_one(spanned, place)?;
    let Statement::CreateSchema {
        schema_name,
        if_not_exists,
        ..
    } = &create
    else {
        unreachable!("schema_elements::start found CREATE SCHEMA")
    };
    if *if_not_exists {
        return Err(SqlError::new(
            "0A000",
            "CREATE SCHEMA IF NOT EXISTS cannot include schema elements",
        ));
    }
    let schema = crate::schemas::created_name(schema_name)?;
    let mut elements = Vec::with_capacity(texts.len());
    for written in texts {
        let mut parsed = statements(&written)?;
        if parsed.len() != 1 {
            return Err(SqlError::syntax(format!(
                "syntax error at or near \"{written}\""
            )));
        }
        elements.push((parsed.remove(0), written));
    }
    Ok(Parsed::CreateSchema {
        create: Box::new(create),
        elements: crate::schema_elements::order(&schema, elements)?,
    })
}

/// `REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refresh {
    pub name: String,
    pub concurrently: bool,
    /// `WITH NO DATA`: emptied and left unpopulated.
    pub data: bool,
}

/// `REINDEX [(VERBOSE)] {INDEX | TABLE | SCHEMA} name`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reindex {
    pub kind: ReindexKind,
    /// The relation's name, or the schema's.
    pub name: String,
    /// `CONCURRENTLY`: the same rebuild (folio's locks writers out for
    /// its length, where PostgreSQL's lets them go on), outside a
    /// transaction block only.
    pub concurrently: bool,
}

/// What `REINDEX` rebuilds the indexes of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReindexKind {
    Index,
    Table,
    /// Every table and materialized view of a schema, outside a
    /// transaction block only.
    Schema,
}

/// `CLUSTER [VERBOSE] [table [USING index]]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cluster {
    /// None: every table with a clustered index.
    pub table: Option<String>,
    /// None: the table's clustered index.
    pub index: Option<String>,
}

/// `ALTER TABLE [IF EXISTS] [ONLY] table CLUSTER ON index | SET WITHOUT
/// CLUSTER`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClusterOn {
    pub table: String,
    pub if_exists: bool,
    /// None: `SET WITHOUT CLUSTER`.
    pub index: Option<String>,
}

/// `ALTER TABLE [IF EXISTS] [ONLY] table ALTER CONSTRAINT name [[NOT]
/// DEFERRABLE] [INITIALLY DEFERRED | INITIALLY IMMEDIATE]`: the foreign
/// key's whole new setting, as PostgreSQL 15 reads it (a clause left out
/// is its default: `ALTER CONSTRAINT fk` alone makes it NOT DEFERRABLE;
/// INITIALLY DEFERRED implies DEFERRABLE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AlterConstraint {
    pub table: String,
    pub if_exists: bool,
    pub name: String,
    pub deferrable: folio_catalog::Deferrable,
}

/// `COMMENT ON object IS 'text' | NULL`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Comment {
    pub on: CommentOn,
    /// `None`: `IS NULL`.
    pub text: Option<String>,
}

/// What a COMMENT is on: relation names as `names::relation` gives them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommentOn {
    Table(String),
    Index(String),
    View(String),
    Matview(String),
    Sequence(String),
    /// `COLUMN relation.column`.
    Column {
        relation: String,
        column: String,
    },
    /// `CONSTRAINT name ON table`.
    Constraint {
        name: String,
        table: String,
    },
    /// `DOMAIN name` or `TYPE name` (`domain`: whether written as a
    /// domain).
    Type {
        name: String,
        domain: bool,
    },
    /// `CONSTRAINT name ON DOMAIN domain`.
    DomainConstraint {
        name: String,
        domain: String,
    },
}

/// `ALTER TABLE table ALTER [COLUMN] column DROP EXPRESSION [IF EXISTS]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DropExpression {
    pub table: String,
    pub column: String,
    pub if_exists: bool,
}

/// `VACUUM [FREEZE] [VERBOSE] [ANALYZE] [table, ...]`, `VACUUM (options)
/// [table, ...]`, `ANALYZE [VERBOSE] [table, ...]`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Vacuum {
    /// Whether dead versions are removed (`VACUUM`; `ANALYZE` alone: no).
    pub vacuum: bool,
    /// Whether the planner's statistics are gathered (`ANALYZE`, `VACUUM
    /// ANALYZE`).
    pub analyze: bool,
    /// `VACUUM FULL`: each table given new storage holding its rows
    /// (folio-catalog `rewrite.rs`).
    pub full: bool,
    /// The tables (none: every table).
    pub tables: Vec<String>,
}

/// `COPY table [(columns)] FROM STDIN | TO STDOUT`, `COPY (query) TO
/// STDOUT`, with options in either spelling PostgreSQL accepts: `[WITH]
/// (option [value], ...)` or the older keywords (`CSV HEADER`,
/// `DELIMITER ','`, ...).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copy {
    /// The table (empty for a query).
    pub table: String,
    pub columns: Vec<String>,
    /// `COPY (query) TO STDOUT`: a query, or an INSERT, UPDATE or
    /// DELETE with RETURNING (its returned rows are the copied ones).
    pub query: Option<Box<Statement>>,
    /// `TO STDOUT` (else `FROM STDIN`).
    pub to_stdout: bool,
    pub format: Format,
}

/// The statements of `sql`, in order (none for an empty text).
pub fn statements(sql: &str) -> Result<Vec<Parsed>, SqlError> {
    let dialect = PostgreSqlDialect {};
    let text = Text::new(sql);
    let mut all = Tokenizer::new(&crate::dialect::Folio, sql)
        .tokenize_with_location()
        .map_err(|e| {
            // sqlparser refuses an escape string holding a NUL (PostgreSQL:
            // 22021) or a wrong Unicode escape.
            let (line, column) = (e.location.line, e.location.column);
            crate::text_bytes::escaped_nul(sql, line, column)
                .or_else(|| crate::string_literals::escape_error(sql, line, column))
                .unwrap_or_else(|| SqlError::syntax(e.to_string()))
        })?;
    crate::numeric_junk::check(&all, &text)?;
    crate::string_literals::read(&mut all, &text)?;
    dollar_quotes_as_strings(&mut all);
    crate::names::truncate_identifiers(&mut all);
    let mut out = Vec::new();
    for (mut spanned, terminator) in position::split(&all) {
        crate::stack::check_tokens(&spanned)?;
        if let Some(at) = crate::schema_elements::start(&spanned) {
            let place = Place {
                text: &text,
                terminator,
            };
            out.push(create_schema(spanned, at, &place)?);
            continue;
        }
        row_lock_strengths_folio_takes(&mut spanned);
        crate::collations::collation_for_as_call(&mut spanned);
        crate::whole_row_cast::rewrite(&mut spanned);
        crate::inheritance::syntax::mark(&mut spanned);
        crate::cursors::current_of::mark(&mut spanned);
        crate::inheritance::syntax::mark_no_inherit(&mut spanned, &text)?;
        crate::grouping_sets::parenthesize_set_items(&mut spanned);
        crate::conflict_target::encode(&mut spanned, &text);
        crate::references_syntax::encode(&mut spanned)?;
        crate::grant_all_columns::expand(&mut spanned);
        crate::key_include_syntax::encode(&mut spanned);
        crate::table_command::expand(&mut spanned);
        crate::select_into::rewrite(&mut spanned);
        let unlogged = crate::unlogged::take(&mut spanned);
        // `ABORT [WORK | TRANSACTION] [AND [NO] CHAIN]` is PostgreSQL's
        // other spelling of ROLLBACK (sqlparser reads no ABORT).
        if matches!(&spanned[0].token, Token::Word(w)
            if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("abort"))
        {
            spanned[0].token = Token::make_keyword("ROLLBACK");
        }
        crate::sql_functions::take_planner_estimates(&mut spanned)?;
        crate::sql_functions::setof_as_table(&mut spanned);
        crate::parameter_modes::mark(&mut spanned);
        identity_options_in_order(&mut spanned, &text)?;
        crate::table_functions::rows_from_as_call(&mut spanned);
        crate::column_definition_syntax::name_unaliased_lists(&mut spanned);
        let check_option = view_check_option(&mut spanned);
        crate::recursive_view::expand(
            &mut spanned,
            &text,
            check_option.as_ref().map(|(_, with)| with),
        )?;
        let check_option = check_option.map(|(option, _)| option);
        crate::search_cycle::mark(&mut spanned, &text)?;
        let likes = crate::create_like::take(&mut spanned, &text)?;
        let partition_spec = match creates_table(&spanned) {
            true => crate::partitions::syntax::take_table_spec(&mut spanned)?,
            false => None,
        };
        if let Some(deferrable) = crate::transaction_modes::take_deferrable(&mut spanned) {
            let place = Place {
                text: &text,
                terminator,
            };
            out.push(Parsed::TransactionModes {
                statement: Box::new(parse_one(spanned, &place)?),
                deferrable,
            });
            continue;
        }
        let first = &spanned[0].token;
        let word = match first {
            Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
            _ => String::new(),
        };
        if word == "checkpoint" {
            if let Some(extra) = spanned.get(1) {
                return Err(text.near(extra));
            }
            out.push(Parsed::Checkpoint);
            continue;
        }
        if word == "do" {
            out.push(Parsed::Do(Box::new(do_block(&spanned[1..], &text)?)));
            continue;
        }
        if let Some(two_phase) = two_phase(&spanned, &text) {
            out.push(two_phase?);
            continue;
        }
        if let Some(refused) =
            crate::sql_functions::refused_form(&plain(&spanned), terminator.is_none())
        {
            return Err(refused);
        }
        let place = Place {
            text: &text,
            terminator,
        };
        let second = spanned.get(1).map(|t| &t.token);
        let parsed = match keyword(first) {
            // The cursor statements (sqlparser's read other dialects').
            _ if word == "declare" => {
                let declare = crate::cursors::parse::declare(&spanned, &text, |mut query| {
                    // (`FOR TABLE t`: a query begins after FOR.)
                    crate::table_command::expand(&mut query);
                    parse_one(query, &place)
                })?;
                Parsed::Declare(Box::new(declare))
            }
            _ if word == "fetch" || word == "move" => Parsed::Fetch(crate::cursors::parse::fetch(
                &spanned,
                &text,
                word == "move",
            )?),
            _ if word == "close" => Parsed::Close(crate::cursors::parse::close(&spanned, &text)?),
            Some(Keyword::VACUUM) => Parsed::Vacuum(vacuum(&plain(&spanned[1..]), true)?),
            Some(Keyword::ANALYZE) => Parsed::Vacuum(vacuum(&plain(&spanned[1..]), false)?),
            Some(Keyword::COPY) => Parsed::Copy(copy(&spanned[1..], &text)?),
            Some(Keyword::COMMENT) => Parsed::Comment(comment(&plain(&spanned[1..]))?),
            _ if word == "reindex" => Parsed::Reindex(reindex(&plain(&spanned[1..]))?),
            _ if word == "cluster" => Parsed::Cluster(cluster(&plain(&spanned[1..]))?),
            Some(Keyword::LOCK) => Parsed::Lock(lock(&plain(&spanned[1..]))?),
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(alter) = row_security(&plain(&spanned[2..])) =>
            {
                Parsed::AlterRowSecurity(alter)
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(on) = cluster_on(&plain(&spanned[2..])) =>
            {
                Parsed::ClusterOn(on)
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(set) = set_logged(&plain(&spanned[2..])) =>
            {
                Parsed::SetLogged(set)
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(alter) = inherit(&plain(&spanned[2..])) =>
            {
                Parsed::Inherit(alter?)
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(alter) = alter_constraint(&plain(&spanned[2..])) =>
            {
                Parsed::AlterConstraint(alter?)
            }
            _ if word == "refresh" => Parsed::Refresh(refresh(&plain(&spanned[1..]))?),
            Some(Keyword::CREATE) if let Some(at) = as_execute(&spanned) => {
                let data = with_data(&mut spanned);
                let execute = parse_one(spanned.split_off(at), &place)?;
                spanned.push(TokenWithSpan::wrap(Token::make_keyword("SELECT")));
                spanned.push(TokenWithSpan::wrap(Token::Whitespace(Whitespace::Space)));
                spanned.push(TokenWithSpan::wrap(Token::Number("1".into(), false)));
                Parsed::CreateAsExecute {
                    create: Box::new(create_table(spanned, &dialect, &place)?),
                    execute: Box::new(execute),
                    data,
                }
            }
            Some(Keyword::CREATE) if second.and_then(keyword) == Some(Keyword::MATERIALIZED) => {
                let data = with_data(&mut spanned);
                Parsed::CreateMatview {
                    create: Box::new(parse_one(spanned, &place)?),
                    data,
                }
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::MATERIALIZED)
                    && spanned.get(2).and_then(|t| keyword(&t.token)) == Some(Keyword::VIEW)
                    && let Some(alter) = view_alter(&plain(&spanned[1..])) =>
            {
                Parsed::AlterViewOptions(alter?)
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::MATERIALIZED)
                    && spanned.get(2).and_then(|t| keyword(&t.token)) == Some(Keyword::VIEW) =>
            {
                spanned[1].token = Token::make_keyword("TABLE");
                spanned.remove(2);
                Parsed::AlterView {
                    alter: Box::new(parse_one(spanned, &place)?),
                    materialized: true,
                }
            }
            // PostgreSQL has no CREATE OR REPLACE or CREATE TEMPORARY
            // MATERIALIZED VIEW.
            Some(Keyword::CREATE)
                if let Some(at) = match second.and_then(keyword) {
                    Some(Keyword::OR) => Some(3),
                    Some(Keyword::TEMP | Keyword::TEMPORARY) => Some(2),
                    _ => None,
                } && spanned.get(at).and_then(|t| keyword(&t.token))
                    == Some(Keyword::MATERIALIZED) =>
            {
                return Err(text.near(&spanned[at]));
            }
            Some(Keyword::SET)
                if matches!(second, Some(Token::Word(w))
                    if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("constraints")) =>
            {
                Parsed::SetConstraints(set_constraints(&plain(&spanned[2..]))?)
            }
            Some(Keyword::SET) if let Some(set) = session_authorization(&plain(&spanned[1..])) => {
                set?
            }
            Some(Keyword::GRANT | Keyword::REVOKE)
                if let Some(on) =
                    (spanned.iter()).position(|t| keyword(&t.token) == Some(Keyword::ON))
                    && routine_kind(&plain(&spanned[on + 1..])).is_some() =>
            {
                Parsed::RoutineGrant(routine_grant(&plain(&spanned))?)
            }
            Some(Keyword::GRANT | Keyword::REVOKE)
                if !spanned
                    .iter()
                    .any(|t| keyword(&t.token) == Some(Keyword::ON)) =>
            {
                Parsed::RoleGrant(role_grant(&plain(&spanned))?)
            }
            Some(Keyword::REVOKE)
                if word_at(&spanned, 1, "grant")
                    && word_at(&spanned, 2, "option")
                    && word_at(&spanned, 3, "for") =>
            {
                spanned.drain(1..4);
                Parsed::RevokeGrantOption(Box::new(parse_one(spanned, &place)?))
            }
            Some(Keyword::ALTER) if second.and_then(keyword) == Some(Keyword::GROUP) => {
                Parsed::RoleGrant(alter_group(&plain(&spanned[2..]))?)
            }
            // `CREATE GROUP` is CREATE ROLE (NOLOGIN is the default of
            // both).
            Some(Keyword::CREATE) if second.and_then(keyword) == Some(Keyword::GROUP) => {
                spanned[1].token = Token::make_keyword("ROLE");
                Parsed::Sql(Box::new(parse_one(spanned, &place)?))
            }
            Some(Keyword::RESET) => Parsed::Reset(reset_name(&plain(&spanned[1..]))?),
            Some(Keyword::DROP)
                if word_at(&spanned, 1, "index") && word_at(&spanned, 2, "concurrently") =>
            {
                spanned.remove(2);
                let drop = parse_one(spanned, &place)?;
                crate::indexes::check_drop_concurrently(&drop)?;
                Parsed::DropIndexConcurrently(Box::new(drop))
            }
            // `SHOW app.user_id`: sqlparser reads a name's parts as words
            // without their dots, so a dotted one is read here.
            Some(Keyword::SHOW) if spanned.get(2).map(|t| &t.token) == Some(&Token::Period) => {
                let name = setting_name(&plain(&spanned[1..]))?;
                Parsed::Sql(Box::new(Statement::ShowVariable {
                    variable: vec![Ident::with_quote('"', name)],
                }))
            }
            Some(Keyword::CREATE) if second.and_then(keyword) == Some(Keyword::AGGREGATE) => {
                Parsed::CreateAggregate(Box::new(crate::user_aggregates::parse_create(
                    &spanned[2..],
                    false,
                )?))
            }
            Some(Keyword::CREATE)
                if second.and_then(keyword) == Some(Keyword::OR)
                    && spanned.get(2).and_then(|t| keyword(&t.token)) == Some(Keyword::REPLACE)
                    && spanned.get(3).and_then(|t| keyword(&t.token))
                        == Some(Keyword::AGGREGATE) =>
            {
                Parsed::CreateAggregate(Box::new(crate::user_aggregates::parse_create(
                    &spanned[4..],
                    true,
                )?))
            }
            Some(Keyword::DROP) if second.and_then(keyword) == Some(Keyword::AGGREGATE) => {
                Parsed::DropAggregate(crate::user_aggregates::parse_drop(&spanned[2..])?)
            }
            Some(Keyword::CREATE) if let Some(at) = crate::procedures::keyword_at(&spanned) => {
                spanned[at].token = Token::make_keyword("FUNCTION");
                let atomic = crate::procedures::take_atomic_body(&mut spanned, &text)?;
                Parsed::CreateProcedure {
                    create: Box::new(parse_one(spanned, &place)?),
                    atomic,
                }
            }
            Some(Keyword::CREATE) if second.and_then(keyword) == Some(Keyword::DOMAIN) => {
                Parsed::CreateDomain(Box::new(crate::domains::parse_create(&spanned[2..])?))
            }
            Some(Keyword::ALTER) if second.and_then(keyword) == Some(Keyword::DOMAIN) => {
                Parsed::AlterDomain(Box::new(crate::domains::parse_alter(&spanned[2..])?))
            }
            Some(Keyword::CREATE)
                if let Some(at) = crate::rule_statements::create_at(&plain(&spanned)) =>
            {
                Parsed::CreateRule(Box::new(crate::rule_statements::parse_create(
                    &spanned[at..],
                    &text,
                    at == 4,
                )?))
            }
            Some(Keyword::ALTER) if second.and_then(keyword) == Some(Keyword::TRIGGER) => {
                Parsed::RenameTrigger(crate::trigger_statements::parse_rename(&spanned[2..])?)
            }
            Some(Keyword::DROP | Keyword::ALTER)
                if matches!(second, Some(Token::Word(w))
                    if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("rule")) =>
            {
                Parsed::RuleNamed(crate::rule_statements::parse_named(
                    &spanned[2..],
                    keyword(first) == Some(Keyword::ALTER),
                )?)
            }
            Some(Keyword::CREATE)
                if second.and_then(keyword) == Some(Keyword::TRIGGER)
                    || (second.and_then(keyword) == Some(Keyword::OR)
                        && spanned.get(3).and_then(|t| keyword(&t.token))
                            == Some(Keyword::TRIGGER)) =>
            {
                let args = trigger_args(&mut spanned, &text)?;
                statement_trigger_by_default(&mut spanned);
                Parsed::CreateTrigger {
                    create: Box::new(parse_one(spanned, &place)?),
                    args,
                }
            }
            Some(Keyword::CREATE) if let Some(option) = check_option => {
                let mut create = parse_one(spanned, &place)?;
                if let Statement::CreateView { options, .. } = &mut create {
                    let option = sqlparser::ast::SqlOption::KeyValue {
                        key: Ident::new("check_option"),
                        value: sqlparser::ast::Expr::Value(
                            sqlparser::ast::Value::SingleQuotedString(option.into()).into(),
                        ),
                    };
                    match options {
                        sqlparser::ast::CreateTableOptions::With(list) => list.push(option),
                        other => *other = sqlparser::ast::CreateTableOptions::With(vec![option]),
                    }
                }
                Parsed::Sql(Box::new(create))
            }
            Some(Keyword::CREATE) if second.and_then(keyword) == Some(Keyword::SEQUENCE) => {
                sequence_options_in_order(&mut spanned[2..], &text)?;
                Parsed::Sql(Box::new(parse_one(spanned, &place)?))
            }
            Some(Keyword::ALTER) if second.and_then(keyword) == Some(Keyword::SEQUENCE) => {
                Parsed::AlterSequence(alter_sequence(&spanned[2..], &place)?)
            }
            // `ALTER USER` is PostgreSQL's other name of `ALTER ROLE`.
            Some(Keyword::ALTER)
                if matches!(second, Some(Token::Word(w))
                    if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("user")) =>
            {
                spanned[1].token = Token::make_keyword("ROLE");
                Parsed::Sql(Box::new(parse_one(spanned, &place)?))
            }
            // `CREATE USER` is `CREATE ROLE` with LOGIN by default.
            Some(Keyword::CREATE)
                if matches!(
                    second.and_then(keyword),
                    Some(Keyword::USER | Keyword::ROLE)
                ) =>
            {
                let user = second.and_then(keyword) == Some(Keyword::USER);
                role_options_once(&plain(spanned.get(3..).unwrap_or_default()))?;
                spanned[1].token = Token::make_keyword("ROLE");
                let mut statement = parse_one(spanned, &place)?;
                if user && let Statement::CreateRole { login, .. } = &mut statement {
                    login.get_or_insert(true);
                }
                Parsed::Sql(Box::new(statement))
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(found) =
                        crate::partitions::syntax::attach_or_detach(&plain(&spanned[2..])) =>
            {
                let (parent, child, bound) = found?;
                Parsed::AttachPartition {
                    parent,
                    child,
                    bound: bound.map(Box::new),
                }
            }
            Some(Keyword::CREATE) if let Some(spec) = partition_spec => {
                parenthesize_defaults(&dialect, &mut spanned);
                Parsed::CreatePartitioned {
                    create: Box::new(parse_one(spanned, &place)?),
                    spec: Box::new(spec),
                }
            }
            Some(Keyword::CREATE)
                if (spanned.get(1..4).into_iter().flatten())
                    .take_while(|t| {
                        matches!(
                            keyword(&t.token),
                            Some(
                                Keyword::TEMP
                                    | Keyword::TEMPORARY
                                    | Keyword::UNLOGGED
                                    | Keyword::GLOBAL
                                    | Keyword::LOCAL
                                    | Keyword::TABLE
                            )
                        )
                    })
                    .any(|t| keyword(&t.token) == Some(Keyword::TABLE)) =>
            {
                Parsed::Sql(Box::new(create_table(spanned, &dialect, &place)?))
            }
            Some(Keyword::ALTER)
                if matches!(
                    second.and_then(keyword),
                    Some(Keyword::VIEW | Keyword::TABLE)
                ) && let Some(alter) = view_alter(&plain(&spanned[1..])) =>
            {
                Parsed::AlterViewOptions(alter?)
            }
            // `ALTER VIEW name RENAME [COLUMN] ... TO new` is ALTER TABLE's
            // rename (which renames a view too), `ALTER VIEW [IF EXISTS]
            // name ALTER [COLUMN] c SET DEFAULT e | DROP DEFAULT` its ALTER
            // COLUMN (`view_defaults.rs`); `ALTER VIEW name AS query` is
            // sqlparser's, refused.
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::VIEW)
                    && ((spanned.iter().skip(3))
                        .any(|t| keyword(&t.token) == Some(Keyword::RENAME))
                        || alters_column(&spanned)) =>
            {
                spanned[1].token = Token::make_keyword("TABLE");
                parenthesize_defaults(&dialect, &mut spanned);
                Parsed::AlterView {
                    alter: Box::new(parse_one(spanned, &place)?),
                    materialized: false,
                }
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && let Some(alter) =
                        crate::alter_identity::parse(&spanned, &place, |mut others| {
                            parenthesize_defaults(&dialect, &mut others);
                            parse_one(others, &place)
                        }) =>
            {
                Parsed::AlterIdentity(alter?)
            }
            Some(Keyword::ALTER)
                if second.and_then(keyword) == Some(Keyword::TABLE)
                    && drop_expression(&plain(&spanned[2..])).is_some() =>
            {
                Parsed::DropExpression(drop_expression(&plain(&spanned[2..])).expect("matched")?)
            }
            Some(Keyword::ALTER) if second.and_then(keyword) == Some(Keyword::TABLE) => {
                parenthesize_defaults(&dialect, &mut spanned);
                Parsed::Sql(Box::new(parse_one(spanned, &place)?))
            }
            _ => Parsed::Sql(Box::new(parse_one(spanned, &place)?)),
        };
        let mut parsed = parsed;
        if unlogged {
            crate::unlogged::mark(&mut parsed)?;
        }
        out.push(match likes.is_empty() {
            true => parsed,
            false => Parsed::CreateLike {
                create: Box::new(parsed),
                likes,
            },
        });
    }
    Ok(out)
}

/// Takes the arguments out of a CREATE TRIGGER's `EXECUTE FUNCTION
/// name(args)` (string constants, numbers or names, each kept as its
/// text, as PostgreSQL's `tgargs`), leaving `name()`.
fn trigger_args(tokens: &mut Vec<TokenWithSpan>, text: &Text<'_>) -> Result<Vec<String>, SqlError> {
    let mut depth = 0usize;
    let mut execute = None;
    for (i, t) in tokens.iter().enumerate() {
        match &t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            _ if depth == 0 && keyword(&t.token) == Some(Keyword::EXECUTE) => {
                execute = Some(i);
                break;
            }
            _ => {}
        }
    }
    let Some(execute) = execute else {
        return Ok(Vec::new());
    };
    let Some(open) = (execute..tokens.len()).find(|&i| tokens[i].token == Token::LParen) else {
        return Ok(Vec::new());
    };
    let Some(close) = (open..tokens.len()).find(|&i| tokens[i].token == Token::RParen) else {
        return Ok(Vec::new());
    };
    let mut args = Vec::new();
    let inner: Vec<TokenWithSpan> = tokens.drain(open + 1..close).collect();
    for piece in inner.split(|t| t.token == Token::Comma) {
        let arg = match piece {
            [t] => match &t.token {
                Token::SingleQuotedString(s) => s.clone(),
                Token::Number(n, _) => n.clone(),
                Token::Word(w) if w.quote_style.is_some() => w.value.clone(),
                Token::Word(w) => w.value.to_lowercase(),
                _ => return Err(text.near(t)),
            },
            [] if inner.is_empty() => continue,
            [] => return Err(SqlError::syntax("syntax error at or near \",\"")),
            [_, t, ..] => return Err(text.near(t)),
        };
        args.push(arg);
    }
    Ok(args)
}

/// A CREATE TRIGGER without `FOR [EACH] {ROW | STATEMENT}` makes a
/// statement trigger (PostgreSQL's default; sqlparser requires the
/// clause): `FOR EACH STATEMENT` is written in before `WHEN` or
/// `EXECUTE`.
fn statement_trigger_by_default(tokens: &mut Vec<TokenWithSpan>) {
    let mut depth = 0usize;
    for i in 0..tokens.len() {
        match &tokens[i].token {
            Token::LParen => depth += 1,
            Token::RParen => depth = depth.saturating_sub(1),
            t if depth == 0 => match keyword(t) {
                Some(Keyword::FOR) => return,
                Some(Keyword::WHEN | Keyword::EXECUTE) => {
                    let words = ["FOR", "EACH", "STATEMENT"].map(Token::make_keyword);
                    tokens.splice(i..i, words.map(TokenWithSpan::wrap));
                    return;
                }
                _ => {}
            },
            _ => {}
        }
    }
}

/// Writes each option of a CREATE VIEW's `WITH (options)` (the first
/// `WITH (` after `VIEW` at `at`, before `AS`) given without a value as
/// `name = true` (sqlparser reads none; PostgreSQL's boolean options
/// mean that).
fn bare_view_options(tokens: &mut Vec<TokenWithSpan>, at: usize) {
    let Some(open) = (at..tokens.len().saturating_sub(1)).find(|&i| {
        matches!(&tokens[i].token, Token::Word(w) if w.keyword == Keyword::AS)
            || (matches!(&tokens[i].token, Token::Word(w) if w.keyword == Keyword::WITH)
                && tokens[i + 1].token == Token::LParen)
    }) else {
        return;
    };
    if matches!(&tokens[open].token, Token::Word(w) if w.keyword == Keyword::AS) {
        return;
    }
    let mut i = open + 2;
    while i < tokens.len() {
        if matches!(tokens[i].token, Token::Word(_))
            && matches!(tokens[i - 1].token, Token::LParen | Token::Comma)
            && matches!(
                tokens.get(i + 1).map(|t| &t.token),
                Some(Token::Comma | Token::RParen)
            )
        {
            let span = tokens[i].span;
            tokens.insert(i + 1, TokenWithSpan::new(Token::Eq, span));
            tokens.insert(
                i + 2,
                TokenWithSpan::new(Token::make_word("true", None), span),
            );
            i += 2;
        }
        if tokens[i].token == Token::RParen {
            return;
        }
        i += 1;
    }
}

/// Takes a trailing `WITH [LOCAL | CASCADED] CHECK OPTION` off a
/// `CREATE [OR REPLACE] [TEMP] [RECURSIVE] VIEW` (sqlparser reads none):
/// the option, `local` or `cascaded` (the default), which the statement
/// then carries as PostgreSQL's `WITH (check_option = ...)`, and the
/// clause's `WITH` token.
fn view_check_option(tokens: &mut Vec<TokenWithSpan>) -> Option<(&'static str, TokenWithSpan)> {
    let word = |t: &TokenWithSpan| match &t.token {
        Token::Word(w) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
        _ => String::new(),
    };
    let mut at = 1;
    if tokens.get(at).map(word).as_deref() == Some("or") {
        at += 2;
    }
    while matches!(
        tokens.get(at).map(word).as_deref(),
        Some("temp" | "temporary" | "recursive")
    ) {
        at += 1;
    }
    if tokens.get(at).map(word).as_deref() != Some("view") {
        return None;
    }
    bare_view_options(tokens, at);
    let n = tokens.len();
    if n < 4 || word(&tokens[n - 1]) != "option" || word(&tokens[n - 2]) != "check" {
        return None;
    }
    let (option, cut) = match word(&tokens[n - 3]).as_str() {
        "local" => ("local", 4),
        "cascaded" => ("cascaded", 4),
        _ => ("cascaded", 3),
    };
    if word(&tokens[n - cut]) != "with" {
        return None;
    }
    let with = tokens[n - cut].clone();
    tokens.truncate(n - cut);
    Some((option, with))
}

/// `CREATE TABLE ...`: its defaults parenthesized, and a CREATE TABLE
/// AS's bare column names (`(a, b) AS query`) read as columns of no type.
fn create_table(
    mut spanned: Vec<TokenWithSpan>,
    dialect: &PostgreSqlDialect,
    place: &Place<'_>,
) -> Result<Statement, SqlError> {
    parenthesize_defaults(dialect, &mut spanned);
    let names = table_as_column_names(&mut spanned);
    let mut statement = parse_one(spanned, place)?;
    if let (Some(names), Statement::CreateTable(create)) = (names, &mut statement) {
        create.columns = names
            .into_iter()
            .map(|name| sqlparser::ast::ColumnDef {
                name,
                data_type: sqlparser::ast::DataType::Unspecified,
                options: Vec::new(),
            })
            .collect();
    }
    Ok(statement)
}

/// Where the EXECUTE of `CREATE ... TABLE ... AS EXECUTE` starts in
/// `tokens`, if they are one.
fn as_execute(tokens: &[TokenWithSpan]) -> Option<usize> {
    let words: Vec<(usize, &Token)> = (tokens.iter().enumerate())
        .filter(|(_, t)| !matches!(t.token, Token::Whitespace(_)))
        .map(|(i, t)| (i, &t.token))
        .collect();
    let table = words
        .iter()
        .position(|(_, t)| keyword(t) == Some(Keyword::TABLE))?;
    let pair = words[table..]
        .windows(2)
        .find(|w| keyword(w[0].1) == Some(Keyword::AS))?;
    (keyword(pair[1].1) == Some(Keyword::EXECUTE)).then_some(pair[1].0)
}

/// Takes a trailing `WITH DATA` or `WITH NO DATA` off `tokens` (a
/// CREATE MATERIALIZED VIEW's): whether the view is to be filled (no
/// clause: yes).
fn with_data(tokens: &mut Vec<TokenWithSpan>) -> bool {
    let is = |t: &TokenWithSpan, word: &str| matches!(&t.token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word));
    let n = tokens.len();
    if n >= 3
        && is(&tokens[n - 1], "data")
        && is(&tokens[n - 2], "no")
        && is(&tokens[n - 3], "with")
    {
        tokens.truncate(n - 3);
        return false;
    }
    if n >= 2 && is(&tokens[n - 1], "data") && is(&tokens[n - 2], "with") {
        tokens.truncate(n - 2);
    }
    true
}

/// A setting's name and nothing after it (`RESET a.b`, `SHOW a.b`).
fn setting_name(tokens: &[Token]) -> Result<String, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    let name = c.setting_name()?;
    c.end()?;
    Ok(name)
}

/// The setting `RESET` names: `TIME ZONE` is `timezone` (SQL's
/// spelling, as in `SET TIME ZONE`), `SESSION AUTHORIZATION`
/// `session_authorization`, else a setting's name.
fn reset_name(tokens: &[Token]) -> Result<String, SqlError> {
    for (first, second, name) in [
        (Keyword::TIME, Keyword::ZONE, "timezone"),
        (
            Keyword::SESSION,
            Keyword::AUTHORIZATION,
            "session_authorization",
        ),
    ] {
        if keyword_at(tokens, 0) == Some(first) && keyword_at(tokens, 1) == Some(second) {
            Cursor { tokens, at: 2 }.end()?;
            return Ok(name.into());
        }
    }
    setting_name(tokens)
}

/// `[SESSION | LOCAL] SESSION AUTHORIZATION name | 'name' | DEFAULT`
/// after `SET`; `None` when the tokens are another SET.
fn session_authorization(tokens: &[Token]) -> Option<Result<Parsed, SqlError>> {
    let mut c = Cursor { tokens, at: 0 };
    let local = c.take_keyword(Keyword::LOCAL);
    // `SET SESSION SESSION AUTHORIZATION`: the first is the scope.
    if !local && keyword_at(tokens, 1) == Some(Keyword::SESSION) {
        c.take_keyword(Keyword::SESSION);
    }
    if !(c.take_keyword(Keyword::SESSION) && c.take_keyword(Keyword::AUTHORIZATION)) {
        return None;
    }
    let role = if c.take_keyword(Keyword::DEFAULT) {
        Ok(None)
    } else {
        match c.next() {
            Some(Token::SingleQuotedString(name)) => Ok(Some(name.clone())),
            Some(Token::Word(_)) => {
                c.at -= 1;
                c.ident().map(|name| Some(names::ident(&name)))
            }
            other => Err(near(other)),
        }
    };
    Some(role.and_then(|role| {
        c.end()?;
        Ok(Parsed::SetSessionAuthorization { role, local })
    }))
}

/// A role as a role statement names it (PostgreSQL's `RoleSpec`).
fn role_spec(c: &mut Cursor<'_>) -> Result<crate::role_statements::RoleSpec, SqlError> {
    use crate::role_statements::RoleSpec;
    Ok(match c.peek().and_then(keyword) {
        Some(Keyword::CURRENT_ROLE | Keyword::CURRENT_USER) => {
            c.at += 1;
            RoleSpec::CurrentRole
        }
        Some(Keyword::SESSION_USER) => {
            c.at += 1;
            RoleSpec::SessionUser
        }
        Some(Keyword::PUBLIC) => {
            c.at += 1;
            RoleSpec::Public
        }
        _ => RoleSpec::Name(names::ident(&c.ident()?)),
    })
}

fn role_specs(c: &mut Cursor<'_>) -> Result<Vec<crate::role_statements::RoleSpec>, SqlError> {
    let mut out = vec![role_spec(c)?];
    while c.take(&Token::Comma) {
        out.push(role_spec(c)?);
    }
    Ok(out)
}

/// `GRANT role, ... TO role, ... [WITH ADMIN OPTION] [GRANTED BY role]`
/// or `REVOKE [ADMIN OPTION FOR] role, ... FROM role, ... [GRANTED BY
/// role] [CASCADE | RESTRICT]` (a GRANT or REVOKE without ON).
fn role_grant(tokens: &[Token]) -> Result<crate::role_statements::RoleGrant, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    let grant = c.take_keyword(Keyword::GRANT);
    if !grant {
        c.expect_keyword(Keyword::REVOKE)?;
    }
    let mut admin = !grant
        && c.peek().and_then(keyword) == Some(Keyword::ADMIN)
        && keyword_at(tokens, c.at + 1) == Some(Keyword::OPTION)
        && keyword_at(tokens, c.at + 2) == Some(Keyword::FOR);
    if admin {
        c.at += 3;
    }
    let mut roles = Vec::new();
    loop {
        roles.push(names::ident(&c.ident()?));
        // PostgreSQL reads `role (columns)` and refuses it.
        if c.peek() == Some(&Token::LParen) {
            return Err(SqlError::new(
                "0LP01",
                "column names cannot be included in GRANT/REVOKE ROLE",
            ));
        }
        if !c.take(&Token::Comma) {
            break;
        }
    }
    c.expect_keyword(if grant { Keyword::TO } else { Keyword::FROM })?;
    let members = role_specs(&mut c)?;
    if grant && c.take_keyword(Keyword::WITH) {
        c.expect_keyword(Keyword::ADMIN)?;
        c.expect_keyword(Keyword::OPTION)?;
        admin = true;
    }
    let granted_by = match c.take_keyword(Keyword::GRANTED) {
        true => {
            c.expect_keyword(Keyword::BY)?;
            Some(role_spec(&mut c)?)
        }
        false => None,
    };
    if !grant && !c.take_keyword(Keyword::CASCADE) {
        c.take_keyword(Keyword::RESTRICT);
    }
    c.end()?;
    Ok(crate::role_statements::RoleGrant {
        grant,
        roles,
        members,
        admin,
        granted_by,
        tag: if grant { "GRANT ROLE" } else { "REVOKE ROLE" },
    })
}

/// The kind of routine the words after a GRANT's or REVOKE's ON name,
/// and whether they are `ALL ... IN SCHEMA` (`None`: not a routine).
fn routine_kind(after_on: &[Token]) -> Option<(&'static str, bool)> {
    let word = |at: usize| match after_on.get(at) {
        Some(Token::Word(w)) if w.quote_style.is_none() => w.value.to_ascii_lowercase(),
        _ => String::new(),
    };
    match (word(0).as_str(), word(1).as_str()) {
        ("function", _) => Some(("function", false)),
        ("procedure", _) => Some(("procedure", false)),
        ("routine", _) => Some(("routine", false)),
        // (Not a table named `type`: `GRANT SELECT ON type TO r`.)
        ("type" | "domain", next) if next != "to" && next != "from" => match word(0).as_str() {
            "type" => Some(("type", false)),
            _ => Some(("domain", false)),
        },
        ("all", "functions") => Some(("function", true)),
        ("all", "procedures") => Some(("procedure", true)),
        ("all", "routines") => Some(("routine", true)),
        _ => None,
    }
}

/// `GRANT { EXECUTE | ALL [PRIVILEGES] } ON { FUNCTION | PROCEDURE |
/// ROUTINE } name [(types)], ... | ALL { FUNCTIONS | PROCEDURES |
/// ROUTINES } IN SCHEMA s, ... TO role, ... [WITH GRANT OPTION]
/// [GRANTED BY role]`, or the REVOKE ([GRANT OPTION FOR] ... FROM ...
/// [CASCADE | RESTRICT]).
fn routine_grant(tokens: &[Token]) -> Result<crate::routine_privileges::RoutineGrant, SqlError> {
    use crate::routine_privileges::{RoutineGrant, Routines};
    let mut c = Cursor { tokens, at: 0 };
    let grant = c.take_keyword(Keyword::GRANT);
    if !grant {
        c.expect_keyword(Keyword::REVOKE)?;
    }
    let mut grant_option = !grant
        && keyword_at(tokens, c.at) == Some(Keyword::GRANT)
        && keyword_at(tokens, c.at + 1) == Some(Keyword::OPTION)
        && keyword_at(tokens, c.at + 2) == Some(Keyword::FOR);
    if grant_option {
        c.at += 3;
    }
    let mut privileges = Vec::new();
    if c.take_keyword(Keyword::ALL) {
        c.take_keyword(Keyword::PRIVILEGES);
    } else {
        loop {
            privileges.push(c.ident()?.value.to_ascii_uppercase());
            if !c.take(&Token::Comma) {
                break;
            }
        }
    }
    c.expect_keyword(Keyword::ON)?;
    let (kind, all) = routine_kind(&tokens[c.at..]).ok_or_else(|| near(c.peek()))?;
    c.at += if all { 2 } else { 1 };
    let routines = if kind == "type" || kind == "domain" {
        let mut names = vec![c.name()?];
        while c.take(&Token::Comma) {
            names.push(c.name()?);
        }
        Routines::Types(names)
    } else if all {
        c.expect_keyword(Keyword::IN)?;
        c.expect_keyword(Keyword::SCHEMA)?;
        let mut schemas = vec![c.name()?];
        while c.take(&Token::Comma) {
            schemas.push(c.name()?);
        }
        Routines::AllInSchemas(schemas)
    } else {
        let mut named = Vec::new();
        loop {
            let start = c.at;
            c.name()?;
            if c.take(&Token::LParen) {
                c.through_closing_paren()?;
            }
            let text: Vec<String> = tokens[start..c.at].iter().map(Token::to_string).collect();
            let sql = format!("DROP FUNCTION {}", text.join(" "));
            match Parser::parse_sql(&PostgreSqlDialect {}, &sql) {
                Ok(mut parsed) => match parsed.pop() {
                    Some(Statement::DropFunction { mut func_desc, .. }) if func_desc.len() == 1 => {
                        named.extend(func_desc.pop());
                    }
                    _ => return Err(near(tokens.get(start))),
                },
                Err(_) => return Err(near(tokens.get(start))),
            }
            if !c.take(&Token::Comma) {
                break;
            }
        }
        Routines::Named(named)
    };
    c.expect_keyword(if grant { Keyword::TO } else { Keyword::FROM })?;
    let grantees = role_specs(&mut c)?;
    if grant && c.take_keyword(Keyword::WITH) {
        c.expect_keyword(Keyword::GRANT)?;
        c.expect_keyword(Keyword::OPTION)?;
        grant_option = true;
    }
    if c.take_keyword(Keyword::GRANTED) {
        c.expect_keyword(Keyword::BY)?;
        return Err(SqlError::unsupported(
            "GRANTED BY in a GRANT or REVOKE on routines",
        ));
    }
    let cascade = !grant && c.take_keyword(Keyword::CASCADE);
    if !grant && !cascade {
        c.take_keyword(Keyword::RESTRICT);
    }
    c.end()?;
    Ok(RoutineGrant {
        grant,
        grant_option,
        cascade,
        privileges,
        kind,
        routines,
        grantees,
    })
}

/// `name ADD | DROP USER role, ...` after `ALTER GROUP`: a GRANT or
/// REVOKE of membership in the group.
fn alter_group(tokens: &[Token]) -> Result<crate::role_statements::RoleGrant, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    let group = names::ident(&c.ident()?);
    let grant = c.take_keyword(Keyword::ADD);
    if !grant {
        c.expect_keyword(Keyword::DROP)?;
    }
    c.expect_keyword(Keyword::USER)?;
    let members = role_specs(&mut c)?;
    c.end()?;
    Ok(crate::role_statements::RoleGrant {
        grant,
        roles: vec![group],
        members,
        admin: false,
        granted_by: None,
        tag: "ALTER ROLE",
    })
}

/// `[CONCURRENTLY] name [WITH [NO] DATA]` after `REFRESH MATERIALIZED
/// VIEW`.
fn refresh(tokens: &[Token]) -> Result<Refresh, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    c.expect_keyword(Keyword::MATERIALIZED)?;
    c.expect_keyword(Keyword::VIEW)?;
    let concurrently = c.take_keyword(Keyword::CONCURRENTLY);
    let name = c.name()?;
    let mut data = true;
    if c.take_keyword(Keyword::WITH) {
        data = !c.take_keyword(Keyword::NO);
        match c.next() {
            Some(Token::Word(w))
                if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("data") => {}
            other => return Err(near(other)),
        }
    }
    c.end()?;
    Ok(Refresh {
        name,
        concurrently,
        data,
    })
}

/// `$$text$$` and `$tag$text$tag$` as the string constants they are:
/// PostgreSQL's scanner makes one kind of constant of every quoting, so
/// whatever takes `'text'` takes `$$text$$` (sqlparser keeps them apart,
/// and folio reads only the first). The span stays, so a position found
/// on the token is still the dollar quote's.
fn dollar_quotes_as_strings(tokens: &mut [TokenWithSpan]) {
    for spanned in tokens {
        if let Token::DollarQuotedString(quoted) = &mut spanned.token {
            spanned.token = Token::SingleQuotedString(std::mem::take(&mut quoted.value));
        }
    }
}

/// `CREATE TABLE [IF NOT EXISTS] name (column, ...) AS query`: the column
/// names, taken out of `tokens` (sqlparser reads a column list as column
/// definitions, which need types); `None` for any other CREATE TABLE.
fn table_as_column_names(tokens: &mut Vec<TokenWithSpan>) -> Option<Vec<sqlparser::ast::Ident>> {
    let word = |at: usize| match tokens.get(at).map(|t| &t.token) {
        Some(Token::Word(w)) => Some(w.clone()),
        _ => None,
    };
    // After `CREATE [GLOBAL | LOCAL] [TEMP | TEMPORARY | UNLOGGED] TABLE`.
    let mut at = 1
        + (1..tokens.len().min(5))
            .find(|&i| word(i).and_then(|w| keyword(&Token::Word(w))) == Some(Keyword::TABLE))?;
    if word(at).and_then(|w| keyword(&Token::Word(w))) == Some(Keyword::IF) {
        at += 3;
    }
    // The name: words joined by periods.
    word(at)?;
    at += 1;
    while tokens.get(at).map(|t| &t.token) == Some(&Token::Period) {
        word(at + 1)?;
        at += 2;
    }
    let open = at;
    if tokens.get(open).map(|t| &t.token) != Some(&Token::LParen) {
        return None;
    }
    let mut names = Vec::new();
    at += 1;
    loop {
        names.push(word(at)?.into_ident(tokens[at].span));
        match tokens.get(at + 1).map(|t| &t.token) {
            Some(Token::Comma) => at += 2,
            Some(Token::RParen) => break,
            _ => return None,
        }
    }
    let close = at + 1;
    // `AS` after the clauses between (`ON COMMIT ...`, `WITH (...)`, ...).
    let mut depth = 0i32;
    (tokens[close + 1..].iter()).find(|t| {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => depth -= 1,
            _ => {}
        }
        depth == 0 && keyword(&t.token) == Some(Keyword::AS)
    })?;
    tokens.drain(open..=close);
    Some(names)
}

/// A column's `DEFAULT (...) op ...` in parentheses of its own, which
/// sqlparser 0.59 needs: it reads a default that opens with a parenthesis
/// as the parenthesized part alone, so `DEFAULT (1 + 2) * 3` or
/// `DEFAULT ('x')::text` is a syntax error at the operator after it
/// (fixed in sqlparser 0.61, apache/datafusion-sqlparser-rs#2168).
/// PostgreSQL reads a `b_expr` there: operators, casts and subscripts,
/// but no comparison, NOT, IS, AND, OR or COLLATE (a COLLATE after the
/// default is the column's). The default's extent is what sqlparser reads
/// from the parenthesis, up to a COLLATE, as an expression of the
/// operators that bind tighter than comparisons; one it cannot read is
/// left for the statement's parse to report. The tokens put in have no
/// location (errors point at the others).
fn parenthesize_defaults(dialect: &PostgreSqlDialect, tokens: &mut Vec<TokenWithSpan>) {
    // The first token from `from` (an opening parenthesis) on that is
    // outside all parentheses after it and meets `stop`.
    let top_level = |tokens: &[TokenWithSpan], from: usize, stop: &dyn Fn(&Token) -> bool| {
        let mut depth = 0usize;
        (from..tokens.len()).find(|&i| {
            match tokens[i].token {
                Token::LParen => depth += 1,
                Token::RParen => depth = depth.saturating_sub(1),
                _ => {}
            }
            depth == 0 && stop(&tokens[i].token)
        })
    };
    let mut at = 0;
    while at + 1 < tokens.len() {
        let opens = keyword(&tokens[at].token) == Some(Keyword::DEFAULT)
            && tokens[at + 1].token == Token::LParen;
        at += 1;
        if !opens {
            continue;
        }
        let start = at;
        let Some(close) = top_level(tokens, start, &|_| true) else {
            return;
        };
        let continues = tokens.get(close + 1).is_some_and(|t| {
            !matches!(
                t.token,
                Token::Word(_) | Token::Comma | Token::RParen | Token::SemiColon | Token::EOF
            )
        });
        if !continues {
            continue;
        }
        // (sqlparser has no infix parser for COLLATE, which it ranks above
        // the arithmetic operators: the default is read up to one.)
        let collate = top_level(tokens, start, &|t| keyword(t) == Some(Keyword::COLLATE));
        let upto = collate.unwrap_or(tokens.len());
        let mut parser =
            Parser::new(dialect).with_tokens_with_locations(tokens[start..upto].to_vec());
        let below_comparisons = dialect.prec_value(Precedence::Between);
        if parser.parse_subexpr(below_comparisons).is_err() {
            return;
        }
        let end = start + parser.index();
        if end <= close + 1 {
            continue;
        }
        tokens.insert(end, TokenWithSpan::wrap(Token::RParen));
        tokens.insert(start, TokenWithSpan::wrap(Token::LParen));
        at = end + 2;
    }
}

/// `FOR NO KEY UPDATE` as `FOR UPDATE` and `FOR KEY SHARE` as `FOR
/// SHARE` (sqlparser reads only those two): folio's row locks have the
/// two strengths, so each weaker PostgreSQL strength takes the stronger
/// one next to it (a lock that conflicts with more; sql README, "Row
/// locks").
fn row_lock_strengths_folio_takes(tokens: &mut Vec<TokenWithSpan>) {
    let mut at = 0;
    while at + 2 < tokens.len() {
        let is = |i: usize, k: Keyword| keyword(&tokens[i].token) == Some(k);
        if is(at, Keyword::FOR) && is(at + 1, Keyword::NO) && is(at + 2, Keyword::KEY) {
            tokens.drain(at + 1..at + 3);
        } else if is(at, Keyword::FOR) && is(at + 1, Keyword::KEY) && is(at + 2, Keyword::SHARE) {
            tokens.remove(at + 1);
        }
        at += 1;
    }
}

/// The tokens without their locations, for the utility statements parsed
/// here (only those: sqlparser takes the located ones).
/// `DO`'s tail: `[LANGUAGE name] 'body' [LANGUAGE name]`, the body parsed
/// as PL/pgSQL (the one language folio runs).
fn do_block(
    tokens: &[TokenWithSpan],
    text: &Text<'_>,
) -> Result<crate::plpgsql::parse::Block, SqlError> {
    let mut body = None;
    let mut language = None;
    let mut at = 0;
    while let Some(t) = tokens.get(at) {
        match &t.token {
            Token::SingleQuotedString(s) if body.is_none() => body = Some(s.clone()),
            Token::Word(w)
                if w.quote_style.is_none()
                    && w.value.eq_ignore_ascii_case("language")
                    && language.is_none() =>
            {
                at += 1;
                language = Some(match tokens.get(at).map(|t| &t.token) {
                    Some(Token::Word(w)) => names::ident(&Ident {
                        value: w.value.clone(),
                        quote_style: w.quote_style,
                        span: sqlparser::tokenizer::Span::empty(),
                    }),
                    Some(Token::SingleQuotedString(s)) => s.clone(),
                    _ => return Err(near(tokens.get(at).map(|t| &t.token))),
                });
            }
            _ => return Err(text.near(t)),
        }
        at += 1;
    }
    match language.as_deref() {
        None | Some("plpgsql") => {}
        Some("sql") => {
            return Err(SqlError::new(
                "0A000",
                "language \"sql\" does not support inline code execution",
            ));
        }
        Some(other) => {
            return Err(
                SqlError::new("42704", format!("language \"{other}\" does not exist"))
                    .with_hint("Use CREATE EXTENSION to load the language into the database."),
            );
        }
    }
    let body = body.ok_or_else(|| SqlError::syntax("no inline code specified"))?;
    crate::plpgsql::parse::parse(&body)
}

fn plain(tokens: &[TokenWithSpan]) -> Vec<Token> {
    tokens.iter().map(|t| t.token.clone()).collect()
}

/// Where a statement lies, for its errors' positions: the whole text and
/// the semicolon that ends it, if any.
pub(crate) struct Place<'p> {
    pub(crate) text: &'p Text<'p>,
    pub(crate) terminator: Option<&'p TokenWithSpan>,
}

fn keyword_at(tokens: &[Token], at: usize) -> Option<Keyword> {
    tokens.get(at).and_then(keyword)
}

/// PostgreSQL's 42601 for a CREATE ROLE option named twice (`LOGIN
/// NOLOGIN`), which sqlparser reports as a syntax error.
fn role_options_once(tokens: &[Token]) -> Result<(), SqlError> {
    const GROUPS: [&[&str]; 5] = [
        &["login", "nologin"],
        &["superuser", "nosuperuser"],
        &["createdb", "nocreatedb"],
        &["createrole", "nocreaterole"],
        &["password"],
    ];
    let mut seen = [false; GROUPS.len()];
    for token in tokens {
        let Token::Word(w) = token else { continue };
        if w.quote_style.is_some() {
            continue;
        }
        let word = w.value.to_ascii_lowercase();
        if let Some(g) = GROUPS.iter().position(|g| g.contains(&word.as_str()))
            && std::mem::replace(&mut seen[g], true)
        {
            return Err(SqlError::new("42601", "conflicting or redundant options"));
        }
    }
    Ok(())
}

/// The options of `CREATE SEQUENCE`, which PostgreSQL takes in any
/// order, put in the one order sqlparser reads them in: AS, INCREMENT,
/// [NO] MINVALUE, [NO] MAXVALUE, START, CACHE, [NO] CYCLE, OWNED BY.
/// `tokens` follow `SEQUENCE`; a clause runs from its keyword to the
/// next clause's. An option given twice (`START 1 START 2`, `CYCLE NO
/// CYCLE`) is PostgreSQL's 42601 "conflicting or redundant options" at
/// the second. The tokens keep their places in the text for errors.
fn sequence_options_in_order(
    tokens: &mut [TokenWithSpan],
    text: &Text<'_>,
) -> Result<(), SqlError> {
    let end = tokens
        .iter()
        .position(|t| t.token == Token::EOF)
        .unwrap_or(tokens.len());
    let word = |at: usize| tokens.get(at).and_then(|t| keyword(&t.token));
    // The options follow `[IF NOT EXISTS] name`: a name may be a word
    // that is also an option's (`create sequence cache start 5`).
    let if_not_exists = [Keyword::IF, Keyword::NOT, Keyword::EXISTS];
    let mut from = match (0..3).all(|at| word(at) == Some(if_not_exists[at])) {
        true => 4,
        false => 1,
    };
    while from + 1 < end && tokens[from].token == Token::Period {
        from += 2;
    }
    // No name (`create sequence`): nothing to sort; sqlparser's 42601.
    options_in_order(&mut tokens[from.min(end)..end], text)
}

/// `GENERATED ... AS IDENTITY (options)` in a CREATE or ALTER TABLE: the
/// options sorted into sqlparser's order as CREATE SEQUENCE's (PostgreSQL
/// takes them in any order; a repeated one is 42601).
fn identity_options_in_order(
    tokens: &mut [TokenWithSpan],
    text: &Text<'_>,
) -> Result<(), SqlError> {
    if !matches!(
        tokens.first().and_then(|t| keyword(&t.token)),
        Some(Keyword::CREATE | Keyword::ALTER)
    ) {
        return Ok(());
    }
    let mut at = 0;
    while at + 1 < tokens.len() {
        if keyword(&tokens[at].token) == Some(Keyword::IDENTITY)
            && tokens[at + 1].token == Token::LParen
            && let Some(close) = tokens[at + 2..]
                .iter()
                .position(|t| matches!(t.token, Token::RParen | Token::LParen | Token::EOF))
                .map(|n| at + 2 + n)
                .filter(|&close| tokens[close].token == Token::RParen)
        {
            options_in_order(&mut tokens[at + 2..close], text)?;
            at = close;
        }
        at += 1;
    }
    Ok(())
}

/// Sequence options (`tokens`: all of them, nothing else) sorted into
/// sqlparser's order, each clause's tokens kept together; a repeated one
/// is 42601 `conflicting or redundant options` at its place.
fn options_in_order(tokens: &mut [TokenWithSpan], text: &Text<'_>) -> Result<(), SqlError> {
    let end = tokens.len();
    let word = |at: usize| tokens.get(at).and_then(|t| keyword(&t.token));
    let rank = |at: usize| -> Option<u8> {
        let after_no = at > 0 && word(at - 1) == Some(Keyword::NO);
        Some(match word(at)? {
            Keyword::AS => 0,
            Keyword::INCREMENT => 1,
            Keyword::NO => match word(at + 1)? {
                Keyword::MINVALUE => 2,
                Keyword::MAXVALUE => 3,
                Keyword::CYCLE => 6,
                _ => return None,
            },
            Keyword::MINVALUE if !after_no => 2,
            Keyword::MAXVALUE if !after_no => 3,
            Keyword::START => 4,
            Keyword::CACHE => 5,
            Keyword::CYCLE if !after_no => 6,
            Keyword::OWNED => 7,
            // ALTER SEQUENCE's, taken out after the sort.
            Keyword::RESTART => 8,
            _ => return None,
        })
    };
    let starts: Vec<(usize, u8)> = (0..end)
        .filter_map(|at| rank(at).map(|r| (at, r)))
        .collect();
    let Some(&(first, _)) = starts.first() else {
        return Ok(());
    };
    for (i, &(at, r)) in starts.iter().enumerate() {
        if starts[..i].iter().any(|&(_, earlier)| earlier == r) {
            return Err(conflicting(text, &tokens[at]));
        }
    }
    let mut clauses: Vec<(u8, &[TokenWithSpan])> = starts
        .iter()
        .enumerate()
        .map(|(i, &(at, r))| {
            let stop = starts.get(i + 1).map_or(end, |&(next, _)| next);
            (r, &tokens[at..stop])
        })
        .collect();
    clauses.sort_by_key(|&(r, _)| r);
    let ordered: Vec<TokenWithSpan> = clauses
        .into_iter()
        .flat_map(|(_, clause)| clause.iter().cloned())
        .collect();
    tokens[first..end].clone_from_slice(&ordered);
    Ok(())
}

/// [`SqlError::conflicting_options`] at `token`.
fn conflicting(text: &Text<'_>, token: &TokenWithSpan) -> SqlError {
    let error = SqlError::conflicting_options();
    match text.position(token.span.start) {
        Some(p) => error.at(p),
        None => error,
    }
}

/// `ALTER SEQUENCE [IF EXISTS] name [AS type] [options] [RESTART [[WITH]
/// n]] [OWNED BY t.c | NONE]`: RESTART taken out, the rest read as CREATE SEQUENCE's options
/// (in any order, [`sequence_options_in_order`]).
pub(crate) fn alter_sequence(
    tokens: &[TokenWithSpan],
    place: &Place<'_>,
) -> Result<crate::sequences::Alter, SqlError> {
    if let Some(renaming) = sequence_renaming(&plain(tokens)) {
        return renaming;
    }
    let mut create = vec![
        TokenWithSpan::wrap(Token::make_keyword("CREATE")),
        TokenWithSpan::wrap(Token::make_keyword("SEQUENCE")),
    ];
    create.extend_from_slice(tokens);
    let words = plain(&create[2..]);
    let if_exists = keyword_at(&words, 0) == Some(Keyword::IF)
        && keyword_at(&words, 1) == Some(Keyword::EXISTS);
    if if_exists {
        create.drain(2..4);
    }
    // The options sorted (a repeated one, RESTART too, is 42601), RESTART
    // last; then RESTART taken out. The tokens keep their places in the
    // text for errors.
    sequence_options_in_order(&mut create[2..], place.text)?;
    let words = plain(&create);
    let mut restart = None;
    if let Some(at) = words
        .iter()
        .position(|t| keyword(t) == Some(Keyword::RESTART))
    {
        let mut end = at + 1;
        if keyword_at(&words, end) == Some(Keyword::WITH) {
            end += 1;
        }
        let negative = words.get(end) == Some(&Token::Minus);
        let number = match words.get(end + usize::from(negative)) {
            Some(Token::Number(n, _)) => Some(
                n.parse::<i64>()
                    .map_err(|_| SqlError::syntax(format!("syntax error at or near \"{n}\"")))?,
            ),
            _ => None,
        };
        match number {
            Some(n) => {
                end += 1 + usize::from(negative);
                restart = Some(Some(if negative { -n } else { n }));
            }
            None if end > at + 1 => {
                return Err(match (create.get(end), place.terminator) {
                    (Some(t), _) if t.token != Token::EOF => place.text.near(t),
                    (_, Some(terminator)) => place.text.near(terminator),
                    (_, None) => place.text.at_end(),
                });
            }
            None => restart = Some(None),
        }
        create.drain(at..end);
    }
    match parse_one(create, place)? {
        Statement::CreateSequence {
            name,
            data_type,
            sequence_options,
            owned_by,
            ..
        } => Ok(crate::sequences::Alter {
            if_exists,
            name,
            data_type,
            options: sequence_options,
            restart,
            owned_by,
            renaming: None,
            persistence: None,
        }),
        _ => Err(SqlError::syntax("syntax error in ALTER SEQUENCE")),
    }
}

/// One statement from its tokens, all of them; a syntax error in
/// PostgreSQL's words, at its position in the text.
fn parse_one(mut tokens: Vec<TokenWithSpan>, place: &Place<'_>) -> Result<Statement, SqlError> {
    // sqlparser reads no window frame's EXCLUDE clause, and a quoted
    // frame offset as an interval.
    if let Err(at) = crate::window_frame::rewrite_frames(&mut tokens) {
        return Err(place.text.near(&tokens[at]));
    }
    // Nor a call's `VARIADIC array`.
    crate::variadic::mark(&mut tokens);
    // Nor a SET list's subscripted target (`array_assignment.rs`).
    crate::array_assignment::mark(&mut tokens);
    // Nor INSERT's `OVERRIDING ... VALUE` (`overriding.rs`).
    crate::overriding::mark(&mut tokens, place.text)?;
    // Nor an INSERT column list's subscripted target (`insert_targets.rs`).
    crate::insert_targets::mark(&mut tokens);
    // Nor TABLESAMPLE as PostgreSQL writes it (`tablesample.rs`).
    crate::tablesample::mark(&mut tokens);
    // Nor `(expr).*` (`field_stars.rs`).
    crate::field_stars::mark(&mut tokens);
    let swallowed = crate::bare_labels::swallowed_filter(&tokens, place.text, place.terminator);
    // folio's dialect: PostgreSQL's bare column labels (`dialect.rs`).
    // (Kept for the error of a subscripted SET target, when there are
    // brackets: `array_subscripts::assigns_to_subscript`.)
    let bracketed = (tokens.iter().any(|t| t.token == Token::LBracket)).then(|| plain(&tokens));
    let mut parser = Parser::new(&crate::dialect::Folio).with_tokens_with_locations(tokens);
    let mut parsed = parser.parse_statement().map_err(|e| {
        let refused = bracketed.map(|t| crate::array_subscripts::assigns_to_subscript(&t));
        match refused {
            Some(Err(refused)) => refused,
            _ => position::syntax_error(place.text, place.terminator, e),
        }
    })?;
    crate::distinct_from::regroup(&mut parsed);
    match parser.peek_token() {
        t if t.token == Token::EOF => {
            crate::bare_labels::check(&parsed, place.text, place.terminator, swallowed)?;
            Ok(parsed)
        }
        t => Err(place.text.near(&t)),
    }
}

/// `[IF EXISTS] name RENAME TO new | SET SCHEMA s | SET LOGGED | SET
/// UNLOGGED` (`tokens` after ALTER SEQUENCE), if it is one of those.
fn sequence_renaming(tokens: &[Token]) -> Option<Result<crate::sequences::Alter, SqlError>> {
    use crate::sequences::Renaming;
    let mut c = Cursor { tokens, at: 0 };
    let if_exists = c.take_keyword(Keyword::IF);
    if if_exists {
        c.expect_keyword(Keyword::EXISTS).ok()?;
    }
    let mut parts = vec![c.ident().ok()?];
    while c.take(&Token::Period) {
        parts.push(c.ident().ok()?);
    }
    let mut persistence = None;
    let renaming = if c.take_keyword(Keyword::RENAME) {
        if let Err(e) = c.expect_keyword(Keyword::TO) {
            return Some(Err(e));
        }
        c.ident().map(|n| Some(Renaming::To(names::ident(&n))))
    } else if c.take_keyword(Keyword::SET) {
        if c.take_keyword(Keyword::SCHEMA) {
            c.ident().map(|n| Some(Renaming::Schema(names::ident(&n))))
        } else if c.take_word("logged") {
            persistence = Some(folio_catalog::Persistence::Permanent);
            Ok(None)
        } else if c.take_word("unlogged") {
            persistence = Some(folio_catalog::Persistence::Unlogged);
            Ok(None)
        } else {
            return None;
        }
    } else {
        return None;
    };
    Some(renaming.and_then(|renaming| {
        c.end()?;
        Ok(crate::sequences::Alter {
            if_exists,
            name: ObjectName(parts.into_iter().map(ObjectNamePart::Identifier).collect()),
            data_type: None,
            options: Vec::new(),
            restart: None,
            owned_by: None,
            renaming,
            persistence,
        })
    }))
}

/// `VIEW | TABLE [IF EXISTS] name SET (options) | RESET (names) | SET
/// SCHEMA s | OWNER TO role` or `MATERIALIZED VIEW [IF EXISTS] name SET
/// SCHEMA s | OWNER TO role` (`tokens` after ALTER), if it is one of
/// those (`view_options.rs`, which refuses a table's but OWNER TO and SET
/// SCHEMA).
fn view_alter(tokens: &[Token]) -> Option<Result<crate::view_options::Alter, SqlError>> {
    use crate::view_options::{Action, Alter, Kind};
    let mut c = Cursor { tokens, at: 0 };
    let kind = if c.take_keyword(Keyword::TABLE) {
        Kind::Table
    } else if c.take_keyword(Keyword::MATERIALIZED) {
        c.expect_keyword(Keyword::VIEW).ok()?;
        Kind::Matview
    } else {
        c.expect_keyword(Keyword::VIEW).ok()?;
        Kind::View
    };
    let if_exists = c.take_keyword(Keyword::IF);
    if if_exists {
        c.expect_keyword(Keyword::EXISTS).ok()?;
    }
    let name = c.name().ok()?;
    let word = |t: Option<&Token>, w: &str| matches!(t, Some(Token::Word(x)) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let action = if c.take_keyword(Keyword::OWNER) {
        c.expect_keyword(Keyword::TO).ok()?;
        Action::OwnerTo(c.ident().ok()?.value)
    } else if c.take_keyword(Keyword::SET) {
        if c.take_keyword(Keyword::SCHEMA) {
            Action::SetSchema(names::ident(&c.ident().ok()?))
        } else if c.peek() == Some(&Token::LParen) {
            if kind == Kind::Matview {
                return None;
            }
            return Some(option_list(&mut c).map(|list| Alter {
                name,
                if_exists,
                kind,
                action: Action::Set(list),
            }));
        } else {
            return None;
        }
    } else if word(c.peek(), "reset") && kind != Kind::Matview {
        c.next();
        let list = match option_list(&mut c) {
            Ok(list) => list,
            Err(e) => return Some(Err(e)),
        };
        if list.iter().any(|(_, value)| value.is_some()) {
            return Some(Err(SqlError::syntax(
                "RESET must not include values for parameters",
            )));
        }
        Action::Reset(list.into_iter().map(|(n, _)| n).collect())
    } else {
        return None;
    };
    Some(c.end().map(|()| Alter {
        name,
        if_exists,
        kind,
        action,
    }))
}

/// `(name [= value], ...)` up to the end of the statement.
fn option_list(c: &mut Cursor<'_>) -> Result<Vec<crate::view_options::Written>, SqlError> {
    c.expect(&Token::LParen)?;
    let mut out = Vec::new();
    loop {
        let name = c.ident()?.value.to_ascii_lowercase();
        let value = match c.take(&Token::Eq) {
            false => None,
            true => Some(match c.next() {
                Some(Token::Word(w)) => w.value.clone(),
                Some(Token::SingleQuotedString(s)) => s.clone(),
                Some(Token::Number(n, _)) => n.clone(),
                other => return Err(near(other)),
            }),
        };
        out.push((name, value));
        if !c.take(&Token::Comma) {
            break;
        }
    }
    c.expect(&Token::RParen)?;
    c.end()?;
    Ok(out)
}

/// Whether `ALTER VIEW` `tokens` go on, after the view's name (and `IF
/// EXISTS`), with `ALTER`: a view column's default is set or dropped.
fn alters_column(tokens: &[TokenWithSpan]) -> bool {
    let rest = tokens.get(2..).unwrap_or_default();
    let Some(at) = rest
        .iter()
        .position(|t| keyword(&t.token) == Some(Keyword::ALTER))
    else {
        return false;
    };
    rest[..at]
        .iter()
        .all(|t| matches!(t.token, Token::Word(_) | Token::Period))
}

/// One expression from text (a stored DEFAULT or CHECK expression).
pub fn expression(sql: &str) -> Result<sqlparser::ast::Expr, SqlError> {
    let mut expr = whole(sql, |p| p.parse_expr())?;
    crate::distinct_from::regroup(&mut expr);
    Ok(expr)
}

/// One key as CREATE INDEX writes it, from text: `expr [COLLATE c]
/// [opclass] [ASC | DESC] [NULLS FIRST | LAST]` (an ON CONFLICT
/// inference element, `conflict_target.rs`).
pub fn index_column(sql: &str) -> Result<sqlparser::ast::IndexColumn, SqlError> {
    let mut column = whole(sql, |p| p.parse_create_index_expr())?;
    crate::distinct_from::regroup(&mut column.column.expr);
    Ok(column)
}

/// One query from text folio writes itself (a rewrite's template).
pub fn query(sql: &str) -> Result<sqlparser::ast::Query, SqlError> {
    whole(sql, |p| p.parse_query()).map(|q| *q)
}

/// The tokens of `sql` without white space, as a statement's are when
/// its rewrites see them (`position::split`).
pub(crate) fn plain_tokens(sql: &str) -> Result<Vec<TokenWithSpan>, SqlError> {
    let mut tokens = Tokenizer::new(&crate::dialect::Folio, sql)
        .tokenize_with_location()
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    tokens.retain(|t| !matches!(t.token, Token::Whitespace(_)));
    Ok(tokens)
}

/// `tokens` written out one space apart, for tests of token rewrites.
#[cfg(test)]
pub(crate) fn spelled(tokens: &[TokenWithSpan]) -> String {
    let words: Vec<String> = tokens.iter().map(|t| t.token.to_string()).collect();
    words.join(" ")
}

/// What `read` parses of all of `sql`.
fn whole<T>(
    sql: &str,
    read: impl FnOnce(&mut Parser<'_>) -> Result<T, sqlparser::parser::ParserError>,
) -> Result<T, SqlError> {
    let dialect = PostgreSqlDialect {};
    let mut tokens = Tokenizer::new(&dialect, sql)
        .tokenize_with_location()
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    dollar_quotes_as_strings(&mut tokens);
    let mut parser = Parser::new(&dialect).with_tokens_with_locations(tokens);
    let parsed = read(&mut parser).map_err(|e| SqlError::syntax(e.to_string()))?;
    at_end(&parser)?;
    Ok(parsed)
}

/// 42601 unless the parser has read all its tokens.
fn at_end(parser: &Parser<'_>) -> Result<(), SqlError> {
    match parser.peek_token().token {
        Token::EOF => Ok(()),
        other => Err(SqlError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// The position of the first unquoted keyword `kw` at or after `from`
/// in `tokens` (the token rewrites' walk over each INSERT or SET).
pub(crate) fn next_keyword(tokens: &[TokenWithSpan], from: usize, kw: Keyword) -> Option<usize> {
    (from..tokens.len()).find(|&i| keyword(&tokens[i].token) == Some(kw))
}

/// A quoted name token (`"value"`): a word no keyword rule reads.
pub(crate) fn quoted_word(value: &str) -> Token {
    Token::Word(sqlparser::tokenizer::Word {
        value: value.to_string(),
        quote_style: Some('"'),
        keyword: Keyword::NoKeyword,
    })
}

/// Whether `tokens[at]` is the unquoted word `word` (any case).
/// `PREPARE TRANSACTION 'gid'`, `COMMIT PREPARED 'gid'` or `ROLLBACK
/// PREPARED 'gid'`; `None` for any other statement.
fn two_phase(tokens: &[TokenWithSpan], text: &Text<'_>) -> Option<Result<Parsed, SqlError>> {
    let (commit, prepare) = match () {
        _ if word_at(tokens, 0, "prepare") && word_at(tokens, 1, "transaction") => (false, true),
        _ if word_at(tokens, 0, "commit") && word_at(tokens, 1, "prepared") => (true, false),
        _ if word_at(tokens, 0, "rollback") && word_at(tokens, 1, "prepared") => (false, false),
        _ => return None,
    };
    let gid = match tokens.get(2).map(|t| &t.token) {
        Some(Token::SingleQuotedString(gid)) => gid.clone(),
        _ => {
            return Some(Err(match tokens.get(2) {
                Some(t) => text.near(t),
                None => SqlError::syntax("syntax error at end of input"),
            }));
        }
    };
    if let Some(extra) = tokens.get(3) {
        return Some(Err(text.near(extra)));
    }
    Some(Ok(match prepare {
        true => Parsed::PrepareTransaction(gid),
        false => Parsed::FinishPrepared { gid, commit },
    }))
}

pub(crate) fn word_at(tokens: &[TokenWithSpan], at: usize, word: &str) -> bool {
    matches!(tokens.get(at).map(|t| &t.token), Some(Token::Word(w))
        if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// The index of the parenthesis in `tokens` closing the one at `open`.
pub(crate) fn closing(tokens: &[TokenWithSpan], open: usize) -> Option<usize> {
    let mut depth = 0i32;
    for (i, t) in tokens.iter().enumerate().skip(open) {
        match t.token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The `(` that the `)` at `close` closes ([`closing`] backwards).
pub(crate) fn opening(tokens: &[TokenWithSpan], close: usize) -> Option<usize> {
    let mut depth = 0i32;
    for i in (0..=close).rev() {
        match tokens[i].token {
            Token::RParen => depth += 1,
            Token::LParen => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `tokens` are a `CREATE [[GLOBAL | LOCAL] TEMP[ORARY]] TABLE`.
fn creates_table(tokens: &[TokenWithSpan]) -> bool {
    let mut words = tokens.iter().map(|t| keyword(&t.token));
    if words.next() != Some(Some(Keyword::CREATE)) {
        return false;
    }
    let mut next = words.next().flatten();
    if matches!(next, Some(Keyword::GLOBAL | Keyword::LOCAL)) {
        next = words.next().flatten();
    }
    if matches!(next, Some(Keyword::TEMP | Keyword::TEMPORARY)) {
        next = words.next().flatten();
    }
    next == Some(Keyword::TABLE)
}

/// The keyword `token` is, if it is an unquoted one.
pub(crate) fn keyword(token: &Token) -> Option<Keyword> {
    match token {
        Token::Word(Word {
            keyword,
            quote_style: None,
            ..
        }) => Some(*keyword),
        _ => None,
    }
}

fn near(token: Option<&Token>) -> SqlError {
    match token {
        Some(t) => SqlError::syntax(format!("syntax error at or near \"{t}\"")),
        None => SqlError::syntax("syntax error at end of input"),
    }
}

/// A cursor over a statement's tokens (whitespace removed).
struct Cursor<'t> {
    tokens: &'t [Token],
    at: usize,
}

impl<'t> Cursor<'t> {
    fn peek(&self) -> Option<&'t Token> {
        self.tokens.get(self.at)
    }

    fn next(&mut self) -> Option<&'t Token> {
        let t = self.tokens.get(self.at);
        self.at += 1;
        t
    }

    /// Takes the next token if it is `keyword`.
    fn take_keyword(&mut self, keyword: Keyword) -> bool {
        let found = self.peek().and_then(self::keyword) == Some(keyword);
        if found {
            self.at += 1;
        }
        found
    }

    /// Takes the next token if it is the unquoted word `w` (any case):
    /// a word sqlparser has no keyword for.
    fn take_word(&mut self, w: &str) -> bool {
        let found = matches!(self.peek(), Some(Token::Word(x))
            if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
        if found {
            self.at += 1;
        }
        found
    }

    fn take(&mut self, token: &Token) -> bool {
        let found = self.peek() == Some(token);
        if found {
            self.at += 1;
        }
        found
    }

    fn expect(&mut self, token: &Token) -> Result<(), SqlError> {
        if self.take(token) {
            Ok(())
        } else {
            Err(near(self.peek()))
        }
    }

    fn expect_keyword(&mut self, keyword: Keyword) -> Result<(), SqlError> {
        if self.take_keyword(keyword) {
            Ok(())
        } else {
            Err(near(self.peek()))
        }
    }

    /// A possibly qualified name (`t`, `public.t`).
    fn name(&mut self) -> Result<String, SqlError> {
        let mut parts = vec![self.ident()?];
        while self.take(&Token::Period) {
            parts.push(self.ident()?);
        }
        names::relation(&ObjectName(
            parts.into_iter().map(ObjectNamePart::Identifier).collect(),
        ))
    }

    /// A setting's name: a word, or words with dots between (a custom
    /// setting's), lower case (setting names are case-blind, quoted or
    /// not).
    fn setting_name(&mut self) -> Result<String, SqlError> {
        let mut name = self.ident()?.value.to_lowercase();
        while self.take(&Token::Period) {
            name.push('.');
            name.push_str(&self.ident()?.value.to_lowercase());
        }
        Ok(name)
    }

    fn ident(&mut self) -> Result<Ident, SqlError> {
        match self.next() {
            Some(Token::Word(w)) => Ok(match w.quote_style {
                Some(q) => Ident::with_quote(q, &w.value),
                None => Ident::new(&w.value),
            }),
            other => Err(near(other)),
        }
    }

    /// `a, b, ...` of names, up to the end.
    fn names_to_end(&mut self) -> Result<Vec<String>, SqlError> {
        let mut out = Vec::new();
        if self.peek().is_none() {
            return Ok(out);
        }
        loop {
            out.push(self.name()?);
            if !self.take(&Token::Comma) {
                break;
            }
        }
        self.end()?;
        Ok(out)
    }

    /// The tokens up to the parenthesis that closes one just taken, which
    /// is taken too.
    fn through_closing_paren(&mut self) -> Result<&'t [Token], SqlError> {
        let start = self.at;
        let mut depth = 1;
        while let Some(t) = self.next() {
            match t {
                Token::LParen => depth += 1,
                Token::RParen => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(&self.tokens[start..self.at - 1]);
                    }
                }
                _ => {}
            }
        }
        Err(SqlError::syntax("syntax error at end of input"))
    }

    /// `a, b, ...)` of column names (the opening parenthesis taken).
    fn column_list(&mut self) -> Result<Vec<String>, SqlError> {
        let names = self.bare_column_list()?;
        self.expect(&Token::RParen)?;
        Ok(names)
    }

    /// `a, b, ...` of column names.
    fn bare_column_list(&mut self) -> Result<Vec<String>, SqlError> {
        let mut names = vec![names::ident(&self.ident()?)];
        while self.take(&Token::Comma) {
            names.push(names::ident(&self.ident()?));
        }
        Ok(names)
    }

    fn end(&self) -> Result<(), SqlError> {
        match self.peek() {
            None => Ok(()),
            other => Err(near(other)),
        }
    }

    /// An option's value: a word, a string or a number (`None` if the
    /// option has none).
    fn option_value(&mut self) -> Option<String> {
        match self.peek()? {
            Token::Word(w) => {
                self.at += 1;
                Some(w.value.clone())
            }
            Token::SingleQuotedString(s) | Token::Number(s, _) => {
                self.at += 1;
                Some(s.clone())
            }
            _ => None,
        }
    }
}

/// `name ALTER [COLUMN] column DROP EXPRESSION [IF EXISTS]` (what
/// follows `ALTER TABLE`), if the tokens are that statement (else `None`:
/// sqlparser reads them).
fn drop_expression(tokens: &[Token]) -> Option<Result<DropExpression, SqlError>> {
    let mut c = Cursor { tokens, at: 0 };
    let table = c.name().ok()?;
    if !c.take_keyword(Keyword::ALTER) {
        return None;
    }
    c.take_keyword(Keyword::COLUMN);
    let column = names::ident(&c.ident().ok()?);
    let expression = matches!(c.tokens.get(c.at + 1), Some(Token::Word(w))
        if w.quote_style.is_none() && w.value.eq_ignore_ascii_case("expression"));
    if !expression || !c.take_keyword(Keyword::DROP) {
        return None;
    }
    c.at += 1;
    let if_exists = c.take_keyword(Keyword::IF);
    Some((|| {
        if if_exists {
            c.expect_keyword(Keyword::EXISTS)?;
        }
        c.end()?;
        Ok(DropExpression {
            table,
            column,
            if_exists,
        })
    })())
}

/// The rest of `COMMENT`: `ON {TABLE | INDEX | VIEW | SEQUENCE | DOMAIN
/// | TYPE} name | ON COLUMN relation.column | ON CONSTRAINT name ON
/// [DOMAIN] object`, then `IS 'text' | IS NULL`. Other objects are 0A000.
fn comment(tokens: &[Token]) -> Result<Comment, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    c.expect_keyword(Keyword::ON)?;
    let on = match c.next().and_then(keyword) {
        Some(Keyword::TABLE) => CommentOn::Table(c.name()?),
        Some(Keyword::INDEX) => CommentOn::Index(c.name()?),
        Some(Keyword::VIEW) => CommentOn::View(c.name()?),
        Some(Keyword::MATERIALIZED) => {
            c.expect_keyword(Keyword::VIEW)?;
            CommentOn::Matview(c.name()?)
        }
        Some(Keyword::SEQUENCE) => CommentOn::Sequence(c.name()?),
        Some(Keyword::COLUMN) => {
            let mut parts = vec![c.ident()?];
            while c.take(&Token::Period) {
                parts.push(c.ident()?);
            }
            let column = names::ident(&parts.pop().expect("one part"));
            if parts.is_empty() {
                return Err(SqlError::syntax("column name must be qualified"));
            }
            let relation = names::relation(&ObjectName(
                parts.into_iter().map(ObjectNamePart::Identifier).collect(),
            ))?;
            CommentOn::Column { relation, column }
        }
        Some(Keyword::CONSTRAINT) => {
            let name = names::ident(&c.ident()?);
            c.expect_keyword(Keyword::ON)?;
            if c.take_keyword(Keyword::DOMAIN) {
                CommentOn::DomainConstraint {
                    name,
                    domain: c.name()?,
                }
            } else {
                CommentOn::Constraint {
                    name,
                    table: c.name()?,
                }
            }
        }
        Some(Keyword::DOMAIN) => CommentOn::Type {
            name: c.name()?,
            domain: true,
        },
        Some(Keyword::TYPE) => CommentOn::Type {
            name: c.name()?,
            domain: false,
        },
        Some(_) => {
            return Err(SqlError::unsupported(format!("COMMENT ON {}", tokens[1])));
        }
        None => return Err(near(c.tokens.get(c.at - 1))),
    };
    c.expect_keyword(Keyword::IS)?;
    let text = match c.next() {
        Some(Token::SingleQuotedString(s) | Token::EscapedStringLiteral(s)) => Some(s.clone()),
        Some(t) if keyword(t) == Some(Keyword::NULL) => None,
        other => return Err(near(other)),
    };
    c.end()?;
    Ok(Comment { on, text })
}

/// The rest of `REINDEX`: `[(VERBOSE)] {INDEX | TABLE} name`. `SCHEMA`,
/// `DATABASE`, `SYSTEM` and `CONCURRENTLY` are 0A000.
/// `SET CONSTRAINTS { ALL | [schema.]name [, ...] } { DEFERRED |
/// IMMEDIATE }`, after `SET CONSTRAINTS`.
fn set_constraints(tokens: &[Token]) -> Result<crate::deferred::SetConstraints, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    let names = match c.take_keyword(Keyword::ALL) {
        true => None,
        false => {
            let mut names = Vec::new();
            loop {
                let first = names::ident(&c.ident()?);
                names.push(match c.take(&Token::Period) {
                    true => (Some(first), names::ident(&c.ident()?)),
                    false => (None, first),
                });
                if !c.take(&Token::Comma) {
                    break;
                }
            }
            Some(names)
        }
    };
    let deferred = match c.next() {
        Some(t) if keyword(t) == Some(Keyword::DEFERRED) => true,
        Some(t) if keyword(t) == Some(Keyword::IMMEDIATE) => false,
        other => return Err(near(other)),
    };
    c.end()?;
    Ok(crate::deferred::SetConstraints { names, deferred })
}

fn reindex(tokens: &[Token]) -> Result<Reindex, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    if c.take(&Token::LParen) {
        for option in c.through_closing_paren()? {
            if !matches!(option, Token::Word(w) if w.value.eq_ignore_ascii_case("verbose")) {
                return Err(SqlError::unsupported(format!(
                    "the REINDEX option {option}"
                )));
            }
        }
    }
    let kind = match c.next() {
        Some(t) if keyword(t) == Some(Keyword::INDEX) => ReindexKind::Index,
        Some(t) if keyword(t) == Some(Keyword::TABLE) => ReindexKind::Table,
        Some(t) if keyword(t) == Some(Keyword::SCHEMA) => ReindexKind::Schema,
        Some(t)
            if keyword(t) == Some(Keyword::DATABASE)
                || matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("system")) =>
        {
            return Err(SqlError::unsupported(format!(
                "REINDEX {}",
                t.to_string().to_uppercase()
            )));
        }
        other => return Err(near(other)),
    };
    let concurrently = c.take_keyword(Keyword::CONCURRENTLY);
    let name = c.name()?;
    c.end()?;
    Ok(Reindex {
        kind,
        name,
        concurrently,
    })
}

/// The rest of `LOCK`: `[TABLE] [ONLY] name [*] [, ...] [IN mode MODE]
/// [NOWAIT]`, the mode `ACCESS EXCLUSIVE` when none is named.
fn lock(tokens: &[Token]) -> Result<crate::lock_table::Lock, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    c.take_keyword(Keyword::TABLE);
    let mut targets = Vec::new();
    loop {
        let only = c.take_keyword(Keyword::ONLY);
        let name = c.name()?;
        // (`t *`: PostgreSQL's old spelling of "with its children".)
        let _ = !only && c.take(&Token::Mul);
        targets.push(crate::lock_table::Target { name, only });
        if !c.take(&Token::Comma) {
            break;
        }
    }
    let mut mode = folio_txn::LockMode::AccessExclusive;
    if c.take_keyword(Keyword::IN) {
        // (PostgreSQL's grammar stops at the first word no mode goes on
        // with: `IN FOO MODE` at FOO, `IN ROW MODE` at MODE.)
        let mut words = Vec::new();
        loop {
            let t = c.next();
            if t.and_then(keyword) == Some(Keyword::MODE)
                && let Some(named) = crate::lock_table::mode_named(&words)
            {
                mode = named;
                break;
            }
            match t {
                Some(Token::Word(w)) if w.quote_style.is_none() => {
                    words.push(w.value.to_ascii_lowercase());
                    if !crate::lock_table::mode_begins(&words) {
                        return Err(near(t));
                    }
                }
                other => return Err(near(other)),
            }
        }
    }
    let nowait = c.take_keyword(Keyword::NOWAIT);
    c.end()?;
    Ok(crate::lock_table::Lock {
        targets,
        mode,
        nowait,
    })
}

/// The rest of `CLUSTER`: `[VERBOSE | (VERBOSE)] [table [USING index]]`
/// (`VERBOSE` prints nothing).
fn cluster(tokens: &[Token]) -> Result<Cluster, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    let verbose =
        |t: &Token| matches!(t, Token::Word(w) if w.value.eq_ignore_ascii_case("verbose"));
    if c.take(&Token::LParen) {
        if let Some(option) = c.through_closing_paren()?.iter().find(|t| !verbose(t)) {
            return Err(SqlError::unsupported(format!(
                "the CLUSTER option {option}"
            )));
        }
    } else if c.peek().is_some_and(verbose) {
        c.next();
    }
    if c.peek().is_none() {
        return Ok(Cluster {
            table: None,
            index: None,
        });
    }
    let table = Some(c.name()?);
    let index = match c.take_keyword(Keyword::USING) {
        true => Some(c.name()?),
        false => None,
    };
    c.end()?;
    Ok(Cluster { table, index })
}

/// `[IF EXISTS] [ONLY] table CLUSTER ON index` or `... SET WITHOUT
/// CLUSTER` after `ALTER TABLE`; `None` for any other ALTER TABLE.
fn cluster_on(tokens: &[Token]) -> Option<ClusterOn> {
    let mut c = Cursor { tokens, at: 0 };
    let if_exists = c.take_keyword(Keyword::IF) && c.take_keyword(Keyword::EXISTS);
    c.take_keyword(Keyword::ONLY);
    let table = c.name().ok()?;
    let index = if c.take_word("cluster") && c.take_keyword(Keyword::ON) {
        Some(c.name().ok()?)
    } else if c.take_word("set") && c.take_word("without") && c.take_word("cluster") {
        None
    } else {
        return None;
    };
    c.end().ok()?;
    Some(ClusterOn {
        table,
        if_exists,
        index,
    })
}

/// `[IF EXISTS] [ONLY] table SET LOGGED | SET UNLOGGED` after `ALTER
/// TABLE`; `None` for any other ALTER TABLE.
fn set_logged(tokens: &[Token]) -> Option<crate::set_logged::SetLogged> {
    use folio_catalog::Persistence;
    let mut c = Cursor { tokens, at: 0 };
    let if_exists = c.take_keyword(Keyword::IF) && c.take_keyword(Keyword::EXISTS);
    c.take_keyword(Keyword::ONLY);
    let table = c.name().ok()?;
    if !c.take_word("set") {
        return None;
    }
    let persistence = if c.take_word("logged") {
        Persistence::Permanent
    } else if c.take_word("unlogged") {
        Persistence::Unlogged
    } else {
        return None;
    };
    c.end().ok()?;
    Some(crate::set_logged::SetLogged {
        table,
        if_exists,
        persistence,
    })
}

/// `[IF EXISTS] [ONLY] table ENABLE | DISABLE | [NO] FORCE ROW LEVEL
/// SECURITY` after `ALTER TABLE`; `None` for any other ALTER TABLE.
fn row_security(tokens: &[Token]) -> Option<crate::policy_statements::AlterRowSecurity> {
    use crate::policy_statements::RowSecurityAction;
    let mut c = Cursor { tokens, at: 0 };
    let if_exists = c.take_keyword(Keyword::IF) && c.take_keyword(Keyword::EXISTS);
    c.take_keyword(Keyword::ONLY);
    let table = c.name().ok()?;
    let action = if c.take_word("enable") {
        RowSecurityAction::Enable
    } else if c.take_word("disable") {
        RowSecurityAction::Disable
    } else if c.take_word("force") {
        RowSecurityAction::Force
    } else if c.take_word("no") && c.take_word("force") {
        RowSecurityAction::NoForce
    } else {
        return None;
    };
    if !(c.take_word("row") && c.take_word("level") && c.take_word("security")) {
        return None;
    }
    c.end().ok()?;
    Some(crate::policy_statements::AlterRowSecurity {
        table,
        if_exists,
        action,
    })
}

/// `[IF EXISTS] [ONLY] table [NO] INHERIT parent` after `ALTER TABLE`;
/// `None` for any other ALTER TABLE.
fn inherit(tokens: &[Token]) -> Option<Result<crate::inheritance::alter::Inherit, SqlError>> {
    let mut c = Cursor { tokens, at: 0 };
    let _ = c.take_keyword(Keyword::IF) && c.take_keyword(Keyword::EXISTS);
    c.take_keyword(Keyword::ONLY);
    let table = c.name().ok()?;
    let add = !c.take_keyword(Keyword::NO);
    if !c.take_keyword(Keyword::INHERIT) {
        return None;
    }
    Some(c.name().and_then(|parent| {
        c.end()?;
        Ok(crate::inheritance::alter::Inherit { table, parent, add })
    }))
}

/// `[IF EXISTS] [ONLY] table ALTER CONSTRAINT name [clauses]` after
/// `ALTER TABLE`; `None` for any other ALTER TABLE.
fn alter_constraint(tokens: &[Token]) -> Option<Result<AlterConstraint, SqlError>> {
    let mut c = Cursor { tokens, at: 0 };
    let if_exists = c.take_keyword(Keyword::IF) && c.take_keyword(Keyword::EXISTS);
    c.take_keyword(Keyword::ONLY);
    let table = c.name().ok()?;
    if !(c.take_keyword(Keyword::ALTER) && c.take_keyword(Keyword::CONSTRAINT)) {
        return None;
    }
    Some((|| {
        let name = names::ident(&c.ident()?);
        let (mut deferrable, mut deferred) = (None, None);
        let twice = || SqlError::syntax("conflicting constraint properties");
        // (PostgreSQL's grammar takes NOT VALID and NO INHERIT here too,
        // then refuses them for a foreign key.)
        let refused = |what: &str| {
            SqlError::new(
                "0A000",
                format!("FOREIGN KEY constraints cannot be marked {what}"),
            )
        };
        while c.peek().is_some() {
            if c.take_keyword(Keyword::NO) {
                c.expect_keyword(Keyword::INHERIT)?;
                return Err(refused("NO INHERIT"));
            } else if c.take_keyword(Keyword::NOT) {
                if c.take_keyword(Keyword::VALID) {
                    return Err(refused("NOT VALID"));
                }
                c.expect_keyword(Keyword::DEFERRABLE)?;
                deferrable.replace(false).map_or(Ok(()), |_| Err(twice()))?;
            } else if c.take_keyword(Keyword::DEFERRABLE) {
                deferrable.replace(true).map_or(Ok(()), |_| Err(twice()))?;
            } else if c.take_keyword(Keyword::INITIALLY) {
                let later = c.take_keyword(Keyword::DEFERRED);
                if !later {
                    c.expect_keyword(Keyword::IMMEDIATE)?;
                }
                deferred.replace(later).map_or(Ok(()), |_| Err(twice()))?;
            } else {
                c.end()?;
            }
        }
        use folio_catalog::Deferrable;
        let deferrable = match (deferrable, deferred) {
            (Some(false), Some(true)) => {
                return Err(SqlError::syntax(
                    "constraint declared INITIALLY DEFERRED must be DEFERRABLE",
                ));
            }
            (_, Some(true)) => Deferrable::InitiallyDeferred,
            (Some(true), _) => Deferrable::InitiallyImmediate,
            _ => Deferrable::No,
        };
        Ok(AlterConstraint {
            table,
            if_exists,
            name,
            deferrable,
        })
    })())
}

/// Whether a boolean option's value is true (no value: true).
fn boolean(name: &str, value: Option<&str>) -> Result<bool, SqlError> {
    match value.map(str::to_ascii_lowercase).as_deref() {
        None | Some("true" | "on" | "1") => Ok(true),
        Some("false" | "off" | "0") => Ok(false),
        Some(other) => Err(SqlError::new(
            "22023",
            format!("{name} requires a Boolean value, not \"{other}\""),
        )),
    }
}

/// The rest of `VACUUM` (`vacuum`) or `ANALYZE`. `FREEZE` asks for nothing
/// folio does not do anyway (its transaction ids never wrap: nothing is
/// ever frozen); `VERBOSE` prints nothing yet.
fn vacuum(tokens: &[Token], vacuum: bool) -> Result<Vacuum, SqlError> {
    let mut c = Cursor { tokens, at: 0 };
    // `ANALYZE` alone analyzes; `VACUUM` does when asked.
    let mut analyze = !vacuum;
    let mut full = false;
    if c.take(&Token::LParen) {
        loop {
            let option = c.ident()?.value.to_ascii_lowercase();
            let value = c.option_value();
            let on = boolean(&option, value.as_deref())?;
            match option.as_str() {
                "analyze" if vacuum => analyze = on,
                "freeze"
                | "verbose"
                | "skip_locked"
                | "index_cleanup"
                | "truncate"
                | "process_toast"
                | "disable_page_skipping" => {}
                "full" if vacuum => full = on,
                other => {
                    return Err(SqlError::unsupported(format!("the VACUUM option {other}")));
                }
            }
            if !c.take(&Token::Comma) {
                break;
            }
        }
        c.expect(&Token::RParen)?;
    } else {
        full = vacuum && c.take_keyword(Keyword::FULL);
        if vacuum {
            c.take_keyword(Keyword::FREEZE);
        }
        c.take_keyword(Keyword::VERBOSE);
        if vacuum && c.take_keyword(Keyword::ANALYZE) {
            analyze = true;
        }
    }
    Ok(Vacuum {
        vacuum,
        analyze,
        full,
        tables: c.names_to_end()?,
    })
}

/// The rest of `COPY`: `table [(columns)] FROM STDIN [[WITH] (options)]`
/// with options `FORMAT text`, `DELIMITER 'c'`, `NULL 'text'`, `FREEZE
/// [bool]` (nothing to do: folio never freezes). Other forms are 0A000.
fn copy(spanned: &[TokenWithSpan], text: &Text<'_>) -> Result<Copy, SqlError> {
    let tokens = plain(spanned);
    let mut c = Cursor {
        tokens: &tokens,
        at: 0,
    };
    // An error about an option as a whole (given twice, not recognized)
    // points at its first token, as PostgreSQL's.
    let position = |at: usize| spanned.get(at).and_then(|t| text.position(t.span.start));
    let mut table = String::new();
    let mut columns = Vec::new();
    let mut query = None;
    if c.take(&Token::LParen) {
        let inner = c.through_closing_paren()?;
        let mut parser = Parser::new(&PostgreSqlDialect {}).with_tokens(inner.to_vec());
        let change = matches!(inner.first(), Some(Token::Word(w))
            if matches!(w.keyword, Keyword::INSERT | Keyword::UPDATE | Keyword::DELETE));
        let statement = match change {
            true => parser.parse_statement(),
            false => parser.parse_query().map(Statement::Query),
        }
        .map_err(|e| SqlError::syntax(e.to_string()))?;
        if parser.peek_token().token != Token::EOF {
            return Err(near(Some(&parser.peek_token().token)));
        }
        if change && !returns_rows(&statement) {
            return Err(SqlError::new(
                "0A000",
                "COPY query must have a RETURNING clause",
            ));
        }
        query = Some(Box::new(statement));
    } else {
        table = c.name()?;
        if c.take(&Token::LParen) {
            loop {
                columns.push(names::ident(&c.ident()?));
                if !c.take(&Token::Comma) {
                    break;
                }
            }
            c.expect(&Token::RParen)?;
        }
    }
    let to_stdout = if c.take_keyword(Keyword::TO) {
        if !c.take_keyword(Keyword::STDOUT) {
            return Err(SqlError::unsupported("COPY TO a file or program"));
        }
        true
    } else {
        if query.is_some() {
            return Err(near(c.peek()));
        }
        c.expect_keyword(Keyword::FROM)?;
        if !c.take_keyword(Keyword::STDIN) {
            return Err(SqlError::unsupported("COPY FROM a file or program"));
        }
        false
    };
    let mut options = copy_format::Options::default();
    c.take_keyword(Keyword::WITH);
    if c.take(&Token::LParen) {
        loop {
            let at = position(c.at);
            let option = c.ident()?.value.to_ascii_lowercase();
            copy_option(&mut c, &mut options, &option, at)?;
            if !c.take(&Token::Comma) {
                break;
            }
        }
        c.expect(&Token::RParen)?;
    } else {
        copy_legacy_options(&mut c, &mut options, &position)?;
    }
    c.end()?;
    Ok(Copy {
        table,
        columns,
        query,
        to_stdout,
        format: options.format(to_stdout)?,
    })
}

/// Whether an INSERT, UPDATE or DELETE has a RETURNING list.
fn returns_rows(statement: &Statement) -> bool {
    match statement {
        Statement::Insert(insert) => insert.returning.is_some(),
        Statement::Update { returning, .. } => returning.is_some(),
        Statement::Delete(delete) => delete.returning.is_some(),
        _ => false,
    }
}

/// One option of `COPY ... WITH (option [value], ...)`, the option at
/// `at` in the text.
fn copy_option(
    c: &mut Cursor<'_>,
    options: &mut copy_format::Options,
    option: &str,
    at: Option<usize>,
) -> Result<(), SqlError> {
    let placed = |error: SqlError| match at {
        Some(p) => error.at(p),
        None => error,
    };
    use copy_format::{Header, Kind, once};
    match option {
        "force_quote" | "force_not_null" | "force_null" => {
            let forced = if c.take(&Token::Mul) {
                Forced::All
            } else {
                c.expect(&Token::LParen)?;
                Forced::Columns(c.column_list()?)
            };
            let slot = match option {
                "force_quote" => &mut options.force_quote,
                "force_not_null" => &mut options.force_not_null,
                _ => &mut options.force_null,
            };
            return once(slot, forced, at);
        }
        _ => {}
    }
    let value = c.option_value();
    match (option, value.as_deref()) {
        ("format", Some(f)) => once(
            &mut options.kind,
            match f.to_ascii_lowercase().as_str() {
                "text" => Kind::Text,
                "csv" => Kind::Csv,
                "binary" => return Err(SqlError::unsupported("COPY's binary format")),
                other => {
                    return Err(placed(SqlError::new(
                        "22023",
                        format!("COPY format \"{other}\" not recognized"),
                    )));
                }
            },
            at,
        ),
        ("freeze", v) => once(&mut options.freeze, boolean("freeze", v)?, at),
        ("delimiter", Some(d)) => once(&mut options.delimiter, d.to_string(), at),
        ("null", Some(n)) => once(&mut options.null, n.to_string(), at),
        ("quote", Some(q)) => once(&mut options.quote, q.to_string(), at),
        ("escape", Some(e)) => once(&mut options.escape, e.to_string(), at),
        ("header", Some(m)) if m.eq_ignore_ascii_case("match") => {
            once(&mut options.header, Header::Match, at)
        }
        ("header", v) => {
            let header = if boolean("header", v)? {
                Header::Present
            } else {
                Header::Absent
            };
            once(&mut options.header, header, at)
        }
        ("encoding", Some(e)) => once(&mut options.encoding, encoding(e)?, at),
        (other, _) => Err(placed(SqlError::new(
            "42601",
            format!("option \"{other}\" not recognized"),
        ))),
    }
}

/// The options' older spelling: `[BINARY] [DELIMITER [AS] 'd'] [NULL [AS]
/// 'n'] [CSV [HEADER] [QUOTE [AS] 'q'] [ESCAPE [AS] 'e'] [FORCE QUOTE
/// cols | *] [FORCE NOT NULL cols] [FORCE NULL cols]] [ENCODING 'e']
/// [FREEZE]`, in any order.
fn copy_legacy_options(
    c: &mut Cursor<'_>,
    options: &mut copy_format::Options,
    position: &dyn Fn(usize) -> Option<usize>,
) -> Result<(), SqlError> {
    use copy_format::{Header, Kind, once};
    while let Some(token) = c.peek() {
        let at = position(c.at);
        let Token::Word(w) = token else {
            return Err(near(Some(token)));
        };
        let word = w.value.to_ascii_lowercase();
        c.at += 1;
        let string = |c: &mut Cursor<'_>| {
            c.take_keyword(Keyword::AS);
            match c.next() {
                Some(Token::SingleQuotedString(s)) => Ok(s.clone()),
                other => Err(near(other)),
            }
        };
        match word.as_str() {
            "binary" => return Err(SqlError::unsupported("COPY's binary format")),
            "csv" => once(&mut options.kind, Kind::Csv, at)?,
            "header" => once(&mut options.header, Header::Present, at)?,
            "freeze" => once(&mut options.freeze, true, at)?,
            "delimiter" => once(&mut options.delimiter, string(c)?, at)?,
            "null" => once(&mut options.null, string(c)?, at)?,
            "quote" => once(&mut options.quote, string(c)?, at)?,
            "escape" => once(&mut options.escape, string(c)?, at)?,
            "encoding" => once(&mut options.encoding, encoding(&string(c)?)?, at)?,
            "force" => {
                let (slot, all) = if c.take_keyword(Keyword::QUOTE) {
                    (&mut options.force_quote, true)
                } else if c.take_keyword(Keyword::NOT) {
                    c.expect_keyword(Keyword::NULL)?;
                    (&mut options.force_not_null, false)
                } else {
                    c.expect_keyword(Keyword::NULL)?;
                    (&mut options.force_null, false)
                };
                let forced = if all && c.take(&Token::Mul) {
                    Forced::All
                } else {
                    Forced::Columns(c.bare_column_list()?)
                };
                once(slot, forced, at)?;
            }
            _ => return Err(near(Some(token))),
        }
    }
    Ok(())
}

/// COPY's `ENCODING`: folio's data is UTF-8, the only encoding accepted.
fn encoding(name: &str) -> Result<(), SqlError> {
    let normal: String = name
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_ascii_lowercase();
    if normal == "utf8" || normal == "unicode" {
        Ok(())
    } else {
        Err(SqlError::unsupported(format!("COPY's encoding {name}")))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves a column default opening with a parenthesis reads on past it
    // (sqlparser 0.59 stopped there), up to the column's next option, and
    // that other defaults and a bad one are left as they were.
    // Proves an option given twice is 42601 "conflicting or redundant
    // options" at the second one, as PostgreSQL points at it, in CREATE /
    // ALTER SEQUENCE (RESTART too) and COPY in either option spelling.
    #[test]
    fn an_option_given_twice_points_at_the_second() {
        for (sql, position) in [
            ("create sequence s start 1 start 2", 27),
            ("create sequence s cycle no cycle", 25),
            ("alter sequence s restart 1 start 1 start 2 restart 3", 36),
            ("alter sequence s restart with 1 restart", 33),
            ("copy t from stdin (format csv, format text)", 32),
            ("copy t from stdin freeze freeze", 26),
        ] {
            let error = statements(sql).unwrap_err();
            assert_eq!(
                (error.code, error.message.as_str(), error.position),
                ("42601", "conflicting or redundant options", Some(position)),
                "{sql}"
            );
        }
    }

    #[test]
    fn a_default_reads_past_its_opening_parenthesis() {
        let sql = "create table t (a int default (1 + 2) * 3 not null, \
                   b text default ('x')::text collate \"C\", c int default (1), \
                   d int default (2)-1, e int default 4 * (5))";
        let parsed = statements(sql);
        let Ok([Parsed::Sql(statement)]) = parsed.as_deref() else {
            panic!("{sql} parses: {parsed:?}");
        };
        let Statement::CreateTable(create) = &**statement else {
            panic!("a CREATE TABLE");
        };
        let defaults: Vec<String> = (create.columns.iter())
            .map(|c| {
                let options: Vec<String> = c.options.iter().map(|o| o.option.to_string()).collect();
                options.join(" ")
            })
            .collect();
        assert_eq!(
            defaults,
            [
                "DEFAULT ((1 + 2) * 3) NOT NULL",
                "DEFAULT (('x')::TEXT) COLLATE \"C\"",
                "DEFAULT (1)",
                "DEFAULT ((2) - 1)",
                "DEFAULT 4 * (5)",
            ]
        );
        let added = statements(
            "alter table t add column f int default (1) * 2, alter a set default (3) * 4",
        );
        assert!(added.is_ok(), "{added:?}");
        // Not a default: the statement's parse reports it, at the operator
        // (PostgreSQL: at the parenthesis after it).
        let bad = statements("create table t (a int default (1) * )").unwrap_err();
        assert_eq!((bad.code, bad.position), ("42601", Some(35)));
    }

    // Proves the utility statements pgbench sends parse, statements split
    // at top-level semicolons only, and bad forms are errors.
    #[test]
    fn utility_statements_and_splitting() {
        let all = statements(
            "vacuum analyze pgbench_branches; ANALYZE; copy pgbench_accounts from stdin with (freeze on); select ';'",
        )
        .unwrap();
        assert_eq!(
            all[0],
            Parsed::Vacuum(Vacuum {
                vacuum: true,
                analyze: true,
                full: false,
                tables: vec!["pgbench_branches".into()]
            })
        );
        assert_eq!(
            all[1],
            Parsed::Vacuum(Vacuum {
                vacuum: false,
                analyze: true,
                full: false,
                tables: vec![]
            })
        );
        assert_eq!(
            all[2],
            Parsed::Copy(Copy {
                table: "pgbench_accounts".into(),
                columns: vec![],
                query: None,
                to_stdout: false,
                format: copy_format::Options::default().format(false).unwrap(),
            })
        );
        assert!(matches!(all[3], Parsed::Sql(_)));
        assert_eq!(all.len(), 4);
        assert!(statements(" ; ").unwrap().is_empty());
        let copy =
            statements("COPY public.\"T\" (a, B) FROM STDIN (DELIMITER ',', NULL '')").unwrap();
        assert_eq!(
            copy[0],
            Parsed::Copy(Copy {
                table: "T".into(),
                columns: vec!["a".into(), "b".into()],
                query: None,
                to_stdout: false,
                format: copy_format::Options {
                    delimiter: Some(",".into()),
                    null: Some(String::new()),
                    ..Default::default()
                }
                .format(false)
                .unwrap(),
            })
        );
        assert!(matches!(&statements("vacuum full t").unwrap()[0], Parsed::Vacuum(v) if v.full));
        assert!(matches!(&statements("vacuum (full) t").unwrap()[0], Parsed::Vacuum(v) if v.full));
        assert_eq!(
            statements("cluster verbose t using i").unwrap()[0],
            Parsed::Cluster(Cluster {
                table: Some("t".into()),
                index: Some("i".into())
            })
        );
        assert_eq!(
            statements("alter table t set without cluster").unwrap()[0],
            Parsed::ClusterOn(ClusterOn {
                table: "t".into(),
                if_exists: false,
                index: None
            })
        );
        assert!(
            matches!(&statements("copy t to stdout").unwrap()[0], Parsed::Copy(c) if c.to_stdout)
        );
        assert_eq!(statements("copy t to '/tmp/x'").unwrap_err().code, "0A000");
        let legacy = statements("copy t from stdin csv header delimiter as ';'").unwrap();
        let Parsed::Copy(legacy) = &legacy[0] else {
            panic!("not a COPY")
        };
        assert_eq!(legacy.format.kind, copy_format::Kind::Csv);
        assert_eq!(legacy.format.delimiter, b';');
        assert!(matches!(
            &statements("copy (select 1) to stdout (format csv, force_quote *)").unwrap()[0],
            Parsed::Copy(c) if c.query.is_some()
        ));
        assert_eq!(
            statements("copy t from stdin (format binary)")
                .unwrap_err()
                .code,
            "0A000"
        );
        assert_eq!(
            statements("copy (select 1) from stdin").unwrap_err().code,
            "42601"
        );
        assert_eq!(statements("vacuum t u").unwrap_err().code, "42601");
        assert_eq!(statements("select 1 2").unwrap_err().code, "42601");
    }

    // Proves the materialized view statements sqlparser does not read:
    // REFRESH's forms, and CREATE's trailing `WITH [NO] DATA` taken off
    // (the query stays whole).
    #[test]
    fn materialized_view_statements() {
        let refresh = |sql: &str| match statements(sql).unwrap().pop() {
            Some(Parsed::Refresh(r)) => (r.name, r.concurrently, r.data),
            other => panic!("{sql}: {other:?}"),
        };
        assert_eq!(
            refresh("refresh materialized view mv"),
            ("mv".into(), false, true)
        );
        assert_eq!(
            refresh("REFRESH MATERIALIZED VIEW CONCURRENTLY public.\"Mv\" WITH DATA"),
            ("Mv".into(), true, true)
        );
        assert_eq!(
            refresh("refresh materialized view mv with no data"),
            ("mv".into(), false, false)
        );
        for bad in [
            "refresh materialized view",
            "refresh materialized view mv with",
            "refresh materialized view mv with no rows",
            "refresh view mv",
        ] {
            assert_eq!(statements(bad).unwrap_err().code, "42601", "{bad}");
        }
        let create = |sql: &str| match statements(sql).unwrap().pop() {
            Some(Parsed::CreateMatview { create, data }) => (create.to_string(), data),
            other => panic!("{sql}: {other:?}"),
        };
        let plain = "CREATE MATERIALIZED VIEW mv AS SELECT a FROM t WHERE a > 1";
        assert_eq!(create(plain), (plain.to_string(), true));
        assert_eq!(
            create(&format!("{plain} with data")),
            (plain.to_string(), true)
        );
        assert_eq!(
            create(&format!("{plain} WITH NO DATA")),
            (plain.to_string(), false)
        );
        for refused in [
            "create or replace materialized view mv as select 1",
            "create temp materialized view mv as select 1",
        ] {
            assert_eq!(statements(refused).unwrap_err().code, "42601");
        }
    }
}
