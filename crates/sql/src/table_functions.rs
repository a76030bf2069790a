//! Functions in FROM that return rows: `generate_series(start, stop [,
//! step])` of integers, and of timestamps by an interval (dates and
//! quoted literals read as timestamptz, as PostgreSQL resolves them),
//! `unnest(array)`, the json ones (`json_table_functions.rs`) and
//! `pg_partition_ancestors(relation)` (the relation and the
//! partitioned tables above it, `lookups.rs`; none for a relation that is
//! neither partitioned nor a partition), `pg_partition_tree(relation)`
//! (the relation and the partitions under it), `pg_options_to_table(options)`
//! (a `name=value` text array's names and values), `regexp_matches` and
//! `regexp_split_to_table` (`regex_functions.rs`), with `WITH ORDINALITY` (a bigint column
//! numbering the rows from 1). Their arguments are evaluated at each run:
//! constants, parameters or, in a correlated subquery, the outer row's
//! values. A lone such call in a select list without FROM (`SELECT
//! generate_series(1, 3)`) is the same call in FROM (`from.rs`).
//!
//! `ROWS FROM (f(...), g(...))` (read as the call `"$rows_from"(f(...),
//! g(...))`, [`rows_from_as_call`]), `unnest(a, b, ...)` and two or
//! more such calls in a select list (`project_set.rs`) run
//! their calls side by side, as PostgreSQL's: as many rows as the longest
//! call gives, the shorter ones' columns NULL past their end, one
//! ordinal per row ([`FunctionScan::also`]).

use crate::error::SqlError;
use crate::json_records::{RecordFunc, RowTypes};
use crate::names;
use crate::scalar::{self, Env, Scalar};
use folio_db::Transaction;
use folio_row::{Numeric, SqlType, Value};
use sqlparser::ast::{FunctionArg, FunctionArgExpr, ObjectName};

/// A function in FROM.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TableFunc {
    /// Integers of this type (int4, or int8 if an argument is), or
    /// timestamp[tz]s stepped by an interval.
    Series(SqlType),
    /// An array's elements, of this type.
    Unnest(SqlType),
    PartitionAncestors,
    /// `pg_partition_tree(relation)`: `relid`, `parentrelid`, `isleaf`,
    /// `level` (oids as `pg_partition_ancestors` gives them).
    PartitionTree,
    /// `pg_options_to_table(text[])`: `option_name`, `option_value`.
    OptionsToTable,
    /// `regexp_matches(text, pattern [, flags])`: a text array per match
    /// (`regex_functions.rs`).
    RegexMatches,
    /// `regexp_split_to_table(text, pattern [, flags])`: the pieces.
    RegexSplit,
    /// `string_to_table(text, delimiter [, null_string])`: the elements
    /// `string_to_array` gives, as rows (a NULL text gives none).
    StringSplit,
    /// `jsonb_path_query(target, path [, vars [, silent]])` (`tz`: its
    /// `_tz` form): the items the path yields (`jsonpath_functions.rs`).
    JsonPathQuery {
        tz: bool,
    },
    /// A json or jsonb value's elements, members or keys.
    Json(crate::json_table_functions::JsonTableFunc),
    /// Records of the columns the call's column definition list declares
    /// (`json_records.rs`; [`FunctionScan::record`]).
    Record(crate::json_records::RecordFunc),
    /// `pg_listening_channels()`: the session's channels (`backend.rs`).
    ListeningChannels,
    /// `pg_snapshot_xip(pg_snapshot)` (xid8s) / `txid_snapshot_xip
    /// (txid_snapshot)` (bigints, `legacy`): a snapshot's in-progress
    /// ids (`xid_functions.rs`).
    SnapshotXip {
        legacy: bool,
    },
    /// `generate_subscripts(array, dim [, reverse])`: the subscripts of
    /// the array's dimension `dim`, from its lower bound up (down when
    /// `reverse`); none for a dimension it has not.
    Subscripts,
    /// The rows a set-returning PL/pgSQL function returned, run before
    /// the plan and passed as a parameter (`plpgsql/set_returning.rs`);
    /// its shape in [`FunctionScan::procedural`].
    Procedural,
    /// `unnest(tsvector)`: `lexeme`, `positions`, `weights`
    /// (`ts_vector_ops::unnest_rows`).
    TsUnnest,
    /// `ts_token_type(parser)`: the parser's token kinds (`ts_debug.rs`).
    TsTokenType,
    /// `ts_parse(parser, text)`: a text's tokens (`ts_debug.rs`).
    TsParse,
    /// `ts_debug([config,] text)`: a text's tokens through a
    /// configuration (`ts_debug.rs`).
    TsDebug,
}

/// A function in FROM with its arguments bound.
#[derive(Debug, Clone, PartialEq)]
pub struct FunctionScan {
    pub func: TableFunc,
    pub args: Vec<Scalar>,
    /// `WITH ORDINALITY`.
    pub ordinality: bool,
    /// A PL/pgSQL function's name and columns ([`TableFunc::Procedural`]).
    pub procedural: Option<Box<crate::plpgsql::set_returning::RowsShape>>,
    /// The calls run side by side with this one (`ROWS FROM`, `unnest`
    /// of several arrays), their columns after its; none for one call.
    pub also: Vec<FunctionScan>,
    /// The column definition list of a function returning records
    /// ([`TableFunc::Record`], [`FunctionScan::define`]): names and types.
    pub record: Vec<(String, SqlType)>,
    /// Its columns (not the side-by-side calls', nor the ordinal) are
    /// one record value, as a select list's call of a function of several
    /// columns gives them ([`FunctionScan::packed`]).
    pub packed: bool,
}

/// The name `ROWS FROM (...)` is read as (no SQL name can be it).
pub const ROWS_FROM: &str = "$rows_from";

/// Rewrites each `ROWS FROM (` in a statement's tokens as the call
/// `$rows_from(`, whose arguments are the calls (sqlparser has no ROWS
/// FROM). Nowhere else does SQL put `ROWS FROM (`.
pub fn rows_from_as_call(tokens: &mut Vec<sqlparser::tokenizer::TokenWithSpan>) {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::{Token, Word};
    let keyword = |t: &Token, k: Keyword| matches!(t, Token::Word(w) if w.keyword == k && w.quote_style.is_none());
    let mut i = 0;
    while i + 2 < tokens.len() {
        if keyword(&tokens[i].token, Keyword::ROWS)
            && keyword(&tokens[i + 1].token, Keyword::FROM)
            && tokens[i + 2].token == Token::LParen
        {
            let span = tokens[i].span.union(&tokens[i + 1].span);
            tokens[i].token = Token::Word(Word {
                value: ROWS_FROM.to_string(),
                quote_style: Some('"'),
                keyword: Keyword::NoKeyword,
            });
            tokens[i].span = span;
            tokens.remove(i + 1);
            // (LATERAL before a function in FROM is a noise word, which
            // sqlparser's LATERAL call without WITH ORDINALITY would not
            // take: a call may read the items before it anyway.)
            if i > 0 && keyword(&tokens[i - 1].token, Keyword::LATERAL) {
                tokens.remove(i - 1);
                i -= 1;
            }
            listed_as_calls(tokens, i + 1);
        }
        i += 1;
    }
}

/// The name a call in ROWS FROM with a column definition list is wrapped
/// in: `"$as"(f(...), 'a int, b text')` stands for `f(...) AS (a int, b
/// text)` (the list's tokens as text; [`column_list`] reads it back).
pub const LISTED: &str = "$as";

/// Rewrites each `f(...) AS (column type, ...)` among the calls of the
/// `ROWS FROM` whose `(` is token `open` as `"$as"(f(...), 'column type,
/// ...')`: sqlparser takes no column definition list in a function's
/// arguments.
fn listed_as_calls(tokens: &mut Vec<sqlparser::tokenizer::TokenWithSpan>, open: usize) {
    use sqlparser::keywords::Keyword;
    use sqlparser::tokenizer::{Token, TokenWithSpan, Word};
    let mut depth = 0usize;
    let mut start = open + 1;
    let mut at = open;
    while at < tokens.len() {
        match &tokens[at].token {
            Token::LParen => depth += 1,
            Token::RParen => {
                depth -= 1;
                if depth == 0 {
                    return;
                }
            }
            Token::Comma if depth == 1 => start = at + 1,
            Token::Word(w)
                if depth == 1
                    && w.keyword == Keyword::AS
                    && w.quote_style.is_none()
                    && at > start
                    && tokens[at - 1].token == Token::RParen
                    && tokens.get(at + 1).map(|t| &t.token) == Some(&Token::LParen) =>
            {
                // The list's tokens, to its `)`.
                let mut close = at + 1;
                let mut inner = 0usize;
                while close < tokens.len() {
                    match tokens[close].token {
                        Token::LParen => inner += 1,
                        Token::RParen => {
                            inner -= 1;
                            if inner == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    close += 1;
                }
                if close >= tokens.len() {
                    return;
                }
                let text: Vec<String> = (tokens[at + 2..close].iter())
                    .map(|t| t.token.to_string())
                    .collect();
                let text = Token::SingleQuotedString(text.join(" "));
                tokens.splice(
                    at..=close,
                    [Token::Comma, text, Token::RParen].map(TokenWithSpan::wrap),
                );
                let name = Token::Word(Word {
                    value: LISTED.to_string(),
                    quote_style: Some('"'),
                    keyword: Keyword::NoKeyword,
                });
                tokens.splice(start..start, [name, Token::LParen].map(TokenWithSpan::wrap));
                // Past the wrapped call's `)`.
                at += 3 + 2;
                continue;
            }
            _ => {}
        }
        at += 1;
    }
}

/// The call and the column definition list of a call in ROWS FROM written
/// with one (`"$as"(call, 'list')`, [`listed_as_calls`]), if `expr` is
/// one: the list as a table alias's columns.
pub fn column_list(
    expr: &sqlparser::ast::Expr,
) -> Result<Option<(&sqlparser::ast::Function, sqlparser::ast::TableAlias)>, SqlError> {
    use sqlparser::ast::{Expr, FunctionArguments};
    let Expr::Function(wrapper) = expr else {
        return Ok(None);
    };
    if names::function(&wrapper.name) != LISTED {
        return Ok(None);
    }
    let FunctionArguments::List(list) = &wrapper.args else {
        return Ok(None);
    };
    let [
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(call))),
        FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Value(text))),
    ] = list.args.as_slice()
    else {
        return Ok(None);
    };
    let sqlparser::ast::Value::SingleQuotedString(text) = &text.value else {
        return Ok(None);
    };
    let query = crate::parse::query(&format!("SELECT * FROM x AS x({text})"))?;
    let alias = match *query.body {
        sqlparser::ast::SetExpr::Select(s) => {
            s.from.into_iter().next().and_then(|t| match t.relation {
                sqlparser::ast::TableFactor::Table { alias, .. } => alias,
                _ => None,
            })
        }
        _ => None,
    };
    let alias =
        alias.ok_or_else(|| SqlError::syntax(format!("syntax error at or near \"{text}\"")))?;
    Ok(Some((call, alias)))
}

/// Whether `name` is a function that returns rows.
pub fn is_table_function(name: &ObjectName) -> bool {
    is_table_function_name(&names::function(name))
}

/// Whether `name` (folded) is a set-returning function's.
pub fn is_table_function_name(name: &str) -> bool {
    matches!(
        name,
        "generate_series"
            | "unnest"
            | "pg_partition_ancestors"
            | "pg_partition_tree"
            | "pg_options_to_table"
            | "regexp_matches"
            | "regexp_split_to_table"
            | "string_to_table"
            | "jsonb_path_query"
            | "jsonb_path_query_tz"
            | "pg_listening_channels"
            | "pg_snapshot_xip"
            | "txid_snapshot_xip"
            | "generate_subscripts"
            | "ts_token_type"
            | "ts_parse"
            | "ts_debug"
            | ROWS_FROM
            | crate::plpgsql::set_returning::ROWS_FUNCTION
    ) || crate::json_table_functions::JsonTableFunc::of(name).is_some()
        || crate::json_records::RecordFunc::of(name).is_some()
}

impl FunctionScan {
    /// The call `name(args)`, or 42883 for a function that returns no
    /// rows here.
    /// `row_type` gives a relation's row type, which a `_populate_`
    /// call's first argument may name (`json_records.rs`).
    pub fn bind(
        name: &ObjectName,
        args: &[FunctionArg],
        ordinality: bool,
        row_type: RowTypes<'_>,
    ) -> Result<FunctionScan, SqlError> {
        if names::function(name) == ROWS_FROM {
            return rows_from(args, ordinality, row_type);
        }
        if let Some(f) = RecordFunc::of(&names::function(name)) {
            return record(f, name, args, ordinality, row_type);
        }
        let none: &[SqlType] = &[];
        let mut bound = Vec::with_capacity(args.len());
        match crate::jsonpath_functions::arguments(&names::function(name), args) {
            Some(exprs) => {
                for e in exprs? {
                    bound.push(scalar::bind(&e, none)?);
                }
            }
            None => {
                for arg in args {
                    let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else {
                        return Err(SqlError::unsupported(format!("the argument {arg}")));
                    };
                    bound.push(scalar::bind(e, none)?);
                }
            }
        }
        let func = match names::function(name).as_str() {
            "unnest" if bound.len() > 1 => {
                let one = |arg: &FunctionArg| {
                    FunctionScan::bind(name, std::slice::from_ref(arg), false, row_type)
                };
                return side_by_side(args.iter().map(one).collect::<Result<_, _>>()?, ordinality);
            }
            "generate_series" => return series(bound, ordinality),
            crate::plpgsql::set_returning::ROWS_FUNCTION => {
                let missing = || SqlError::new("42883", format!("function {name} does not exist"));
                let mut bound = bound.into_iter();
                let (Some(Scalar::Const(oid)), Some(rows)) = (bound.next(), bound.next()) else {
                    return Err(missing());
                };
                let item = bound.next().is_some();
                let oid = crate::functions::int_arg(&oid)?;
                let shape = crate::plpgsql::set_returning::rows_shape(oid, item)?;
                return Ok(FunctionScan {
                    func: TableFunc::Procedural,
                    args: vec![rows],
                    ordinality,
                    procedural: Some(Box::new(shape)),
                    also: Vec::new(),
                    record: Vec::new(),
                    packed: false,
                });
            }
            "unnest" if bound.len() == 1 && bound[0].ty_in(none) == SqlType::TsVector => {
                TableFunc::TsUnnest
            }
            "unnest" if bound.len() == 1 => {
                let ty = bound[0].ty_in(none);
                let element = ty.element();
                // `unnest(multirange)`: its ranges (`multirange_functions.rs`).
                let element = element.or_else(|| crate::multirange_functions::range_type(ty));
                let Some(element) = element else {
                    return Err(crate::functions::no_match(format!(
                        "function unnest({}) does not exist",
                        ty.name()
                    )));
                };
                TableFunc::Unnest(element)
            }
            "pg_partition_ancestors" if bound.len() == 1 => TableFunc::PartitionAncestors,
            "pg_partition_tree" if bound.len() == 1 => TableFunc::PartitionTree,
            "pg_options_to_table" if bound.len() == 1 => {
                let ty = bound[0].ty_in(none);
                if !matches!(
                    ty,
                    SqlType::Text
                        | SqlType::Array(SqlType::Text | SqlType::Varchar(_) | SqlType::Char(_))
                ) {
                    return Err(crate::functions::no_match(format!(
                        "function pg_options_to_table({}) does not exist",
                        ty.name()
                    )));
                }
                TableFunc::OptionsToTable
            }
            "regexp_matches" if (2..=3).contains(&bound.len()) => TableFunc::RegexMatches,
            "regexp_split_to_table" if (2..=3).contains(&bound.len()) => TableFunc::RegexSplit,
            "string_to_table" if (2..=3).contains(&bound.len()) => TableFunc::StringSplit,
            "jsonb_path_query" | "jsonb_path_query_tz" if (2..=4).contains(&bound.len()) => {
                TableFunc::JsonPathQuery {
                    tz: names::function(name).ends_with("_tz"),
                }
            }
            "pg_listening_channels" if bound.is_empty() => TableFunc::ListeningChannels,
            "ts_token_type" if bound.len() == 1 => TableFunc::TsTokenType,
            "ts_parse" if bound.len() == 2 => TableFunc::TsParse,
            "ts_debug" if (1..=2).contains(&bound.len()) => TableFunc::TsDebug,
            xip @ ("pg_snapshot_xip" | "txid_snapshot_xip") if bound.len() == 1 => {
                let legacy = xip.starts_with("txid");
                let ty = bound[0].ty_in(none);
                let wanted = crate::xid_functions::snapshot_type(legacy);
                if ty != wanted && !matches!(bound[0], Scalar::Const(Value::Text(_) | Value::Null))
                {
                    return Err(crate::functions::no_match(format!(
                        "function {xip}({}) does not exist",
                        ty.name()
                    )));
                }
                let arg = bound.remove(0);
                bound.push(Scalar::Cast(Box::new(arg), wanted));
                TableFunc::SnapshotXip { legacy }
            }
            "generate_subscripts" if (2..=3).contains(&bound.len()) => {
                let ty = bound[0].ty_in(none);
                if ty.element().is_none() {
                    return Err(crate::functions::no_match(format!(
                        "function generate_subscripts({}, integer) does not exist",
                        ty.name()
                    )));
                }
                TableFunc::Subscripts
            }
            other => match crate::json_table_functions::JsonTableFunc::of(other) {
                Some(f) if bound.len() == 1 => {
                    bound = vec![f.bind_arg(other, bound.remove(0))?];
                    TableFunc::Json(f)
                }
                _ => {
                    return Err(SqlError::new(
                        "42883",
                        format!("function {name} does not exist"),
                    ));
                }
            },
        };
        Ok(FunctionScan {
            func,
            args: bound,
            ordinality,
            procedural: None,
            also: Vec::new(),
            record: Vec::new(),
            packed: false,
        })
    }

    /// Its name (its table's, and its column's without an alias, for
    /// a function of one column).
    pub fn name(&self) -> String {
        if let Some(shape) = &self.procedural {
            return shape.name.clone();
        }
        match self.func {
            TableFunc::Series(_) => "generate_series",
            TableFunc::Unnest(_) | TableFunc::TsUnnest => "unnest",
            TableFunc::PartitionAncestors => "relid",
            TableFunc::PartitionTree => "pg_partition_tree",
            TableFunc::OptionsToTable => "pg_options_to_table",
            TableFunc::RegexMatches => "regexp_matches",
            TableFunc::RegexSplit => "regexp_split_to_table",
            TableFunc::StringSplit => "string_to_table",
            TableFunc::JsonPathQuery { tz: false } => "jsonb_path_query",
            TableFunc::JsonPathQuery { tz: true } => "jsonb_path_query_tz",
            TableFunc::Json(f) => f.name(),
            TableFunc::Record(f) => f.name(),
            TableFunc::ListeningChannels => "pg_listening_channels",
            TableFunc::SnapshotXip { legacy: false } => "pg_snapshot_xip",
            TableFunc::SnapshotXip { legacy: true } => "txid_snapshot_xip",
            TableFunc::Subscripts => "generate_subscripts",
            TableFunc::Procedural => crate::plpgsql::set_returning::ROWS_FUNCTION,
            TableFunc::TsTokenType => "ts_token_type",
            TableFunc::TsParse => "ts_parse",
            TableFunc::TsDebug => "ts_debug",
        }
        .to_string()
    }

    /// Whether an alias `AS a` names its (one) value column too: not for
    /// a PL/pgSQL function's named columns, nor a function's of fixed
    /// named columns, as PostgreSQL's.
    pub fn named_by_alias(&self) -> bool {
        self.also.is_empty()
            && !matches!(self.func, TableFunc::Record(_))
            && self.func.columns().is_none()
            && self.procedural.as_ref().is_none_or(|s| s.named_by_alias)
    }

    /// Takes the column definition list of `alias` (`AS x(a int, b
    /// text)`), which a function returning records must have and no
    /// other may, as PostgreSQL's 42601s say; 42701 for a name given
    /// twice. The errors point at the call (`call`, where it starts) or
    /// at the list's first column, where PostgreSQL's do.
    pub fn define(
        mut self,
        alias: Option<&sqlparser::ast::TableAlias>,
        call: Option<sqlparser::tokenizer::Location>,
    ) -> Result<Self, SqlError> {
        let columns = alias.map_or(&[][..], |a| &a.columns[..]);
        let typed = columns.iter().filter(|c| c.data_type.is_some()).count();
        // A function returning `record`: a json one whose columns no row
        // type gave (`json_records.rs`), or a PL/pgSQL `SETOF record` one.
        let record = self.also.is_empty()
            && match self.func {
                TableFunc::Record(_) => self.record.is_empty(),
                // (Not one whose list ROWS FROM gave: `rows_from`.)
                TableFunc::Procedural => {
                    self.procedural.as_ref().is_some_and(|s| s.record) && self.record.is_empty()
                }
                _ => false,
            };
        if typed == 0 {
            if record {
                return Err(SqlError::syntax(
                    "a column definition list is required for functions returning \"record\"",
                )
                .near(call));
            }
            return Ok(self);
        }
        let listed = columns.first().map(|c| c.name.span.start);
        if typed < columns.len() {
            let untyped = columns.iter().find(|c| c.data_type.is_none());
            let after = untyped.map_or(String::new(), |c| format!(" after \"{}\"", c.name));
            return Err(SqlError::syntax(format!(
                "syntax error in a column definition list{after}"
            )));
        }
        if !record {
            let redundant = matches!(
                self.func,
                TableFunc::Json(crate::json_table_functions::JsonTableFunc::Each { .. })
            ) || self.procedural.as_ref().is_some_and(|s| !s.named_by_alias);
            let composite = matches!(self.func, TableFunc::Record(_));
            return Err(SqlError::syntax(match (composite, redundant) {
                (true, _) => {
                    "a column definition list is redundant for a function returning a named composite type"
                }
                (false, true) => {
                    "a column definition list is redundant for a function with OUT parameters"
                }
                (false, false) => {
                    "a column definition list is only allowed for functions returning \"record\""
                }
            })
            .near(listed));
        }
        if self.ordinality {
            return Err(SqlError::syntax(
                "WITH ORDINALITY cannot be used with a column definition list",
            )
            .with_hint("Put the column definition list inside ROWS FROM().")
            .near(listed));
        }
        for c in columns {
            let name = names::ident(&c.name);
            if self.record.iter().any(|(n, _)| *n == name) {
                return Err(SqlError::new(
                    "42701",
                    format!("column name \"{name}\" specified more than once"),
                ));
            }
            let ty = crate::types::column_type(c.data_type.as_ref().expect("typed"))?;
            self.record.push((name, ty));
        }
        if let Some(shape) = self.procedural.as_mut() {
            shape.columns = self.record.clone();
        }
        Ok(self)
    }

    /// Its value columns' names (without an alias), then `ordinality`.
    pub fn column_names(&self) -> Vec<String> {
        let mut names = match self.packed {
            true => vec![self.name()],
            false => self.own_names(),
        };
        for other in &self.also {
            names.extend(other.column_names());
        }
        if self.ordinality {
            names.push("ordinality".into());
        }
        names
    }

    /// The names of this call's own columns, unpacked.
    fn own_names(&self) -> Vec<String> {
        match (self.func, &self.procedural) {
            (TableFunc::Json(f), _) => f.columns().iter().map(|(n, _)| n.to_string()).collect(),
            (TableFunc::Record(_), _) => self.record.iter().map(|(n, _)| n.clone()).collect(),
            (f, _) if f.columns().is_some() => (f.columns().into_iter().flatten())
                .map(|(n, _)| n.to_string())
                .collect(),
            (_, Some(shape)) => shape.columns.iter().map(|(n, _)| n.clone()).collect(),
            _ => vec![self.name()],
        }
    }

    /// Its columns' types: the values, then the ordinal.
    pub fn types(&self) -> Vec<SqlType> {
        let mut types = match self.packed {
            true => vec![self.record_type()],
            false => self.own_types(),
        };
        for other in &self.also {
            types.extend(other.types());
        }
        if self.ordinality {
            types.push(SqlType::Int8);
        }
        types
    }

    /// This call's columns packed: with each call of the side-by-side
    /// ones that gives several columns giving them as one record value
    /// instead, as PostgreSQL's select list shows such a call
    /// (`select unnest('a:1'::tsvector)` is `(a,{1},{D})`; its fields
    /// are read by name, `(unnest(...)).lexeme`). `project_set.rs` asks
    /// for it for the FROM items it makes of a select list's calls.
    pub fn packed(mut self) -> Self {
        let several = self.own_types().len() > 1;
        self.packed = several && self.func != TableFunc::Procedural;
        self.also = self.also.into_iter().map(FunctionScan::packed).collect();
        self
    }

    /// The record type of this call's own columns, when packed: an
    /// anonymous `record` whose fields are its columns.
    fn record_type(&self) -> SqlType {
        let def = folio_row::CompositeType::intern(folio_row::CompositeType {
            oid: SqlType::Record.oid(),
            array_oid: SqlType::Array(&SqlType::Record).oid(),
            name: "record".into(),
            fields: self.own_names().into_iter().zip(self.own_types()).collect(),
        });
        *def.sql_type()
    }

    /// The types of this call's own columns, unpacked.
    fn own_types(&self) -> Vec<SqlType> {
        match self.func {
            TableFunc::Series(ty) | TableFunc::Unnest(ty) => vec![ty],
            TableFunc::PartitionAncestors => vec![SqlType::Reg(folio_row::RegKind::Class)],
            TableFunc::PartitionTree
            | TableFunc::OptionsToTable
            | TableFunc::TsUnnest
            | TableFunc::TsTokenType
            | TableFunc::TsParse
            | TableFunc::TsDebug => (self.func.columns().into_iter().flatten())
                .map(|(_, t)| *t)
                .collect(),
            TableFunc::RegexMatches => vec![SqlType::Array(&SqlType::Text)],
            TableFunc::Subscripts => vec![SqlType::Int4],
            TableFunc::SnapshotXip { legacy } => vec![crate::xid_functions::id_type(legacy)],
            TableFunc::JsonPathQuery { .. } => vec![SqlType::Jsonb],
            TableFunc::RegexSplit | TableFunc::StringSplit | TableFunc::ListeningChannels => {
                vec![SqlType::Text]
            }
            TableFunc::Json(f) => f.columns().iter().map(|(_, t)| *t).collect(),
            TableFunc::Record(_) => self.record.iter().map(|(_, t)| *t).collect(),
            TableFunc::Procedural => (self.procedural.iter())
                .flat_map(|s| s.columns.iter().map(|(_, t)| *t))
                .collect(),
        }
    }

    /// Its rows for this run, each passed to `keep` (a filter), the first
    /// `limit` of those kept: a series stops there (`select * from
    /// generate_series(1, 1e9) limit 1` makes one row). Side by side
    /// ([`FunctionScan::also`]) each call is cut at `limit` before `keep`
    /// sees a row, so a limit comes only with a `keep` that takes every
    /// row (`query.rs` pushes one only into an unfiltered call).
    pub fn rows(
        &self,
        txn: &Transaction,
        env: &Env<'_>,
        limit: Option<usize>,
        mut keep: impl FnMut(&[Value]) -> Result<bool, SqlError>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        if !self.also.is_empty() {
            return self.side_by_side_rows(txn, env, limit, keep);
        }
        if self.packed {
            return self.packed_rows(txn, env, limit, keep);
        }
        let wanted = |out: &Vec<Vec<Value>>| limit.is_none_or(|l| out.len() < l);
        let mut args = Vec::with_capacity(self.args.len());
        for (at, a) in self.args.iter().enumerate() {
            match a.eval(&[], env)? {
                // A NULL argument gives no rows, but a NULL document is
                // one row of NULLs from a `_to_record` (`json_records.rs`),
                // and `string_to_table`'s delimiter and null string may be
                // NULL.
                Value::Null
                    if !matches!(self.func, TableFunc::Record(_))
                        && (at == 0 || self.func != TableFunc::StringSplit) =>
                {
                    return Ok(Vec::new());
                }
                v => args.push(v),
            }
        }
        let mut out = Vec::new();
        let mut n = 0i64;
        // Whether more rows are wanted after this one.
        let mut push_row = |mut row: Vec<Value>| -> Result<bool, SqlError> {
            if !wanted(&out) {
                return Ok(false);
            }
            n += 1;
            crate::interrupt::every(txn, n as u64)?;
            if self.ordinality {
                row.push(Value::Int8(n));
            }
            if keep(&row)? {
                out.push(row);
            }
            Ok(wanted(&out))
        };
        if limit == Some(0) {
            return Ok(out);
        }
        if let TableFunc::Json(f) = self.func {
            for row in f.rows(&args[0])? {
                push_row(row)?;
            }
            return Ok(out);
        }
        if let TableFunc::Record(f) = self.func {
            for row in f.rows(&args[0], &args[1], &self.record)? {
                push_row(row)?;
            }
            return Ok(out);
        }
        if self.func == TableFunc::TsUnnest {
            if let Value::TsVector(v) = &args[0] {
                for row in crate::ts_vector_ops::unnest_rows(v) {
                    push_row(row)?;
                }
            }
            return Ok(out);
        }
        if let Some(rows) = self.text_search_rows(&args)? {
            for row in rows {
                push_row(row)?;
            }
            return Ok(out);
        }
        if self.func == TableFunc::OptionsToTable {
            for row in options_rows(&args[0])? {
                push_row(row)?;
            }
            return Ok(out);
        }
        if self.func == TableFunc::PartitionTree {
            let Some(lookups) = env.lookups else {
                return Ok(out);
            };
            let oid = crate::catalog_functions::regclass_arg(&args[0], lookups)?;
            let relation = |oid: Option<i64>| oid.map_or(Value::Null, |o| Value::Oid(o as u32));
            for row in lookups.partition_tree(oid) {
                push_row(vec![
                    relation(Some(row.relid)),
                    relation(row.parent),
                    Value::Bool(row.leaf),
                    Value::Int4(row.level),
                ])?;
            }
            return Ok(out);
        }
        if self.func == TableFunc::Procedural {
            for row in crate::plpgsql::set_returning::rows_of(args.swap_remove(0)) {
                push_row(row)?;
            }
            return Ok(out);
        }
        let mut push = |value: Value| push_row(vec![value]);
        match self.func {
            TableFunc::Series(ty @ (SqlType::Timestamp(_) | SqlType::TimestampTz(_))) => {
                let instant = |v: &Value| match crate::types::cast(v.clone(), ty)? {
                    Value::Timestamp(t) | Value::TimestampTz(t) => Ok(t),
                    other => Err(SqlError::new(
                        "42883",
                        format!(
                            "function generate_series({}) does not exist",
                            other.type_name()
                        ),
                    )),
                };
                let (start, stop) = (instant(&args[0])?, instant(&args[1])?);
                let Value::Interval(step) =
                    crate::types::cast(args[2].clone(), SqlType::Interval(None))?
                else {
                    unreachable!("cast to interval")
                };
                let direction = step.span().signum();
                if direction == 0 {
                    return Err(SqlError::new("22023", "step size cannot equal zero"));
                }
                let stamp = |t: i64| match ty {
                    SqlType::Timestamp(_) => Value::Timestamp(t),
                    _ => Value::TimestampTz(t),
                };
                let within = |x: i64| (direction > 0 && x <= stop) || (direction < 0 && x >= stop);
                // A series from an infinity never ends (each step stays
                // there): folio refuses it before the first row. One toward
                // an infinity runs until a limit stops it, or its step runs
                // past the last timestamp ("timestamp out of range"), as
                // PostgreSQL's does.
                if within(start) && folio_row::Infinity::of_timestamp(start).is_some() {
                    return Err(SqlError::new("22008", "timestamp out of range"));
                }
                let mut x = start;
                while within(x) {
                    if !push(stamp(x))? {
                        break;
                    }
                    let next = match ty {
                        SqlType::Timestamp(_) => step.add_to_timestamp(x).map_err(SqlError::from),
                        _ => crate::time_zones::add_in_session(step, x),
                    };
                    x = next?;
                }
            }
            TableFunc::Series(SqlType::Numeric(_)) => {
                for x in numeric_series(&args)? {
                    if !push(Value::Numeric(x))? {
                        break;
                    }
                }
            }
            TableFunc::Series(ty) => {
                let int = crate::functions::int_arg;
                let (start, stop) = (int(&args[0])?, int(&args[1])?);
                let step = args.get(2).map_or(Ok(1), int)?;
                if step == 0 {
                    return Err(SqlError::new("22023", "step size cannot equal zero"));
                }
                let mut x = start;
                while (step > 0 && x <= stop) || (step < 0 && x >= stop) {
                    let more = push(match ty {
                        SqlType::Int4 => Value::Int4(x as i32),
                        _ => Value::Int8(x),
                    })?;
                    if !more {
                        break;
                    }
                    match x.checked_add(step) {
                        Some(next) => x = next,
                        None => break,
                    }
                }
            }
            TableFunc::Unnest(_) => match args.swap_remove(0) {
                Value::Array(items) => {
                    for item in items {
                        push(item)?;
                    }
                }
                Value::Multirange(m) => {
                    for range in m.ranges() {
                        push(Value::Range(Box::new(range.clone())))?;
                    }
                }
                _ => {}
            },
            TableFunc::Subscripts => {
                use crate::array_functions::ArrayFunc;
                let bound = |f: ArrayFunc| f.eval(vec![args[0].clone(), args[1].clone()]);
                let (Value::Int4(lower), Value::Int4(upper)) =
                    (bound(ArrayFunc::Lower)?, bound(ArrayFunc::Upper)?)
                else {
                    return Ok(out);
                };
                let reverse = matches!(args.get(2), Some(Value::Bool(true)));
                let mut subscripts: Box<dyn Iterator<Item = i32>> = match reverse {
                    true => Box::new((lower..=upper).rev()),
                    false => Box::new(lower..=upper),
                };
                for subscript in &mut subscripts {
                    if !push(Value::Int4(subscript))? {
                        break;
                    }
                }
            }
            TableFunc::JsonPathQuery { .. } => {
                for item in crate::jsonpath_functions::query_rows(&args)? {
                    push(item)?;
                }
            }
            TableFunc::StringSplit => {
                if let Value::Array(items) = crate::array_functions::split(&args) {
                    for item in items {
                        push(item)?;
                    }
                }
            }
            TableFunc::SnapshotXip { legacy } => {
                for id in crate::xid_functions::xip_rows(&args[0], legacy) {
                    if !push(id)? {
                        break;
                    }
                }
            }
            TableFunc::ListeningChannels => {
                let channels = env.backend.map(|b| b.backend().channels());
                for channel in channels.unwrap_or_default() {
                    push(Value::Text(channel))?;
                }
            }
            TableFunc::RegexMatches | TableFunc::RegexSplit => {
                let text = |i: usize| args.get(i).and_then(Value::to_text).unwrap_or_default();
                let (source, pattern, flags) = (text(0), text(1), text(2));
                let rows = match self.func {
                    TableFunc::RegexMatches => {
                        crate::regex_functions::all_matches(&source, &pattern, &flags)?
                    }
                    _ => crate::regex_functions::split_rows(&source, &pattern, &flags)?,
                };
                for row in rows {
                    push(row)?;
                }
            }
            TableFunc::PartitionAncestors => {
                let Some(lookups) = env.lookups else {
                    return Ok(out);
                };
                let oid = crate::catalog_functions::regclass_arg(&args[0], lookups)?;
                // (`regclass` values, as PostgreSQL's.)
                for oid in lookups.partition_ancestors(oid) {
                    let oid = u32::try_from(oid).unwrap_or(0);
                    push(crate::reg_types::reg_value(
                        folio_row::RegKind::Class,
                        oid,
                        Some(lookups),
                    ))?;
                }
            }
            TableFunc::Json(_)
            | TableFunc::Record(_)
            | TableFunc::Procedural
            | TableFunc::PartitionTree
            | TableFunc::OptionsToTable
            | TableFunc::TsUnnest
            | TableFunc::TsTokenType
            | TableFunc::TsParse
            | TableFunc::TsDebug => {}
        }
        Ok(out)
    }
}

impl TableFunc {
    /// The named columns of a function of fixed columns; `None` for the
    /// others.
    pub fn columns(self) -> Option<&'static [(&'static str, SqlType)]> {
        match self {
            TableFunc::PartitionTree => Some(&[
                ("relid", SqlType::Oid),
                ("parentrelid", SqlType::Oid),
                ("isleaf", SqlType::Bool),
                ("level", SqlType::Int4),
            ]),
            TableFunc::OptionsToTable => Some(&[
                ("option_name", SqlType::Text),
                ("option_value", SqlType::Text),
            ]),
            TableFunc::TsUnnest => Some(&[
                ("lexeme", SqlType::Text),
                ("positions", SqlType::Array(&SqlType::Int2)),
                ("weights", SqlType::Array(&SqlType::Text)),
            ]),
            TableFunc::TsTokenType => Some(crate::ts_debug::TOKEN_TYPE_COLUMNS),
            TableFunc::TsParse => Some(crate::ts_debug::PARSE_COLUMNS),
            TableFunc::TsDebug => Some(crate::ts_debug::DEBUG_COLUMNS),
            _ => None,
        }
    }
}

/// `pg_options_to_table(options)`: each `name=value` element split at its
/// first `=`, an element without one a name whose value is NULL; a NULL
/// element is 22004, as PostgreSQL's.
fn options_rows(options: &Value) -> Result<Vec<Vec<Value>>, SqlError> {
    let Value::Array(items) = crate::types::cast(options.clone(), SqlType::Array(&SqlType::Text))?
    else {
        unreachable!("cast to text[]")
    };
    let mut rows = Vec::with_capacity(items.len());
    for item in items {
        let Value::Text(option) = item else {
            return Err(SqlError::new(
                "22004",
                "null array element not allowed in this context",
            ));
        };
        rows.push(match option.split_once('=') {
            Some((name, value)) => vec![Value::Text(name.into()), Value::Text(value.into())],
            None => vec![Value::Text(option), Value::Null],
        });
    }
    Ok(rows)
}

/// A json function returning records (`json_records.rs`): its arguments
/// the document, then the base row (NULL but for a `_populate_` call's);
/// its columns the first argument's row type (a `_populate_` call's) or,
/// left empty here, the column definition list's ([`FunctionScan::define`]).
fn record(
    f: RecordFunc,
    name: &ObjectName,
    args: &[FunctionArg],
    ordinality: bool,
    row_type: RowTypes<'_>,
) -> Result<FunctionScan, SqlError> {
    let mut exprs = Vec::with_capacity(args.len());
    for arg in args {
        let FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) = arg else {
            return Err(SqlError::unsupported(format!("the argument {arg}")));
        };
        exprs.push(e);
    }
    let (base, record) = match (f.populate, exprs.as_slice()) {
        (false, [_]) => (Scalar::Const(Value::Null), None),
        (true, [base, _]) => f.bind_base(base, row_type)?,
        _ => {
            return Err(SqlError::new(
                "42883",
                format!("function {name} does not exist"),
            ));
        }
    };
    let none: &[SqlType] = &[];
    let doc = scalar::bind(exprs[exprs.len() - 1], none)?;
    let doc = crate::json_table_functions::bind_document(f.name(), doc, f.doc_type(), none)?;
    Ok(FunctionScan {
        func: TableFunc::Record(f),
        args: vec![doc, base],
        ordinality,
        procedural: None,
        also: Vec::new(),
        record: record.unwrap_or_default(),
        packed: false,
    })
}

/// `generate_series(start, stop [, step])` of integers (int8 if an
/// argument is, else int4; a parameter takes the series' type).
fn series(bounds: Vec<Scalar>, ordinality: bool) -> Result<FunctionScan, SqlError> {
    let none: &[SqlType] = &[];
    let typed: Vec<Option<SqlType>> = bounds
        .iter()
        .map(|b| match b {
            Scalar::Param(_) => None,
            b => Some(b.ty_in(none)),
        })
        .collect();
    let integer = |t: &Option<SqlType>| {
        matches!(
            t,
            None | Some(SqlType::Int2 | SqlType::Int4 | SqlType::Int8)
        )
    };
    // A series of timestamps when an argument is a date, a timestamp or an
    // interval (the others may be quoted literals or parameters).
    let timely = typed.iter().any(|t| {
        matches!(
            t,
            Some(
                SqlType::Date
                    | SqlType::Timestamp(_)
                    | SqlType::TimestampTz(_)
                    | SqlType::Interval(_)
            )
        )
    });
    if bounds.len() == 3 && timely {
        // Timestamps if the typed bounds are (a literal or a parameter
        // takes the other bound's type), else timestamptz.
        let bounds_typed = &typed[..2];
        if !bounds_typed.iter().all(|t| {
            matches!(
                t,
                None | Some(
                    SqlType::Date | SqlType::Timestamp(_) | SqlType::TimestampTz(_) | SqlType::Text
                )
            )
        }) {
            return Err(SqlError::unsupported(
                "generate_series of other than integers, or timestamps by an interval",
            ));
        }
        let ty = if bounds_typed
            .iter()
            .any(|t| matches!(t, Some(SqlType::Timestamp(_))))
            && bounds_typed
                .iter()
                .all(|t| matches!(t, None | Some(SqlType::Timestamp(_) | SqlType::Text)))
        {
            SqlType::Timestamp(None)
        } else {
            SqlType::TimestampTz(None)
        };
        if matches!(typed[2], None | Some(SqlType::Interval(_) | SqlType::Text)) {
            let types = [ty, ty, SqlType::Interval(None)];
            let args = bounds
                .into_iter()
                .zip(types)
                .map(|(b, t)| match b {
                    p @ Scalar::Param(_) => Scalar::Typed(Box::new(p), t),
                    b => b,
                })
                .collect();
            return Ok(FunctionScan {
                func: TableFunc::Series(ty),
                args,
                ordinality,
                procedural: None,
                also: Vec::new(),
                record: Vec::new(),
                packed: false,
            });
        }
    }
    let numeric = |t: &Option<SqlType>| matches!(t, Some(SqlType::Numeric(_)));
    let numbers = |t: &Option<SqlType>| integer(t) || numeric(t) || t == &Some(SqlType::Text);
    if !(2..=3).contains(&bounds.len())
        || !(typed.iter().all(integer) || (typed.iter().any(numeric) && typed.iter().all(numbers)))
    {
        return Err(SqlError::unsupported(
            "generate_series of other than integers, numerics, or timestamps by an interval",
        ));
    }
    let ty = match (
        typed.iter().any(numeric),
        typed.contains(&Some(SqlType::Int8)),
    ) {
        (true, _) => SqlType::Numeric(None),
        (false, true) => SqlType::Int8,
        (false, false) => SqlType::Int4,
    };
    // (Any argument not of the series' type is cast to it.)
    let bounds = match ty {
        SqlType::Numeric(_) => (bounds.into_iter())
            .zip(&typed)
            .map(|(b, t)| match t {
                Some(SqlType::Numeric(_)) => b,
                _ => Scalar::Cast(Box::new(b), ty),
            })
            .collect(),
        _ => bounds,
    };
    let args: Vec<Scalar> = bounds
        .into_iter()
        .map(|b| match b {
            p @ Scalar::Param(_) => Scalar::Typed(Box::new(p), ty),
            b => b,
        })
        .collect();
    if let Some(Scalar::Const(v)) = args.get(2)
        && ty != SqlType::Numeric(None)
        && crate::functions::int_arg(v).is_ok_and(|s| s == 0)
    {
        return Err(SqlError::new("22023", "step size cannot equal zero"));
    }
    Ok(FunctionScan {
        func: TableFunc::Series(ty),
        args,
        ordinality,
        procedural: None,
        also: Vec::new(),
        record: Vec::new(),
        packed: false,
    })
}

/// `generate_series(numeric, numeric [, numeric])`'s values, lazily (a
/// LIMIT stops it), after PostgreSQL's checks in its order: a NaN or
/// infinite start or stop, then a NaN, infinite or zero step, 22023.
fn numeric_series(args: &[Value]) -> Result<impl Iterator<Item = Numeric>, SqlError> {
    let number = |v: &Value| match v {
        Value::Numeric(n) => Ok(n.clone()),
        other => Err(SqlError::new(
            "42883",
            format!(
                "function generate_series({}) does not exist",
                other.type_name()
            ),
        )),
    };
    let (start, stop) = (number(&args[0])?, number(&args[1])?);
    let step = args.get(2).map_or(Ok(Numeric::from_i64(1)), number)?;
    let invalid = |what: &str| Err(SqlError::new("22023", what.to_string()));
    for (n, name) in [(&start, "start value"), (&stop, "stop value")] {
        if n.is_nan() {
            return invalid(&format!("{name} cannot be NaN"));
        }
        if n.is_infinite() {
            return invalid(&format!("{name} cannot be infinity"));
        }
    }
    let direction = match (step.is_nan(), step.is_infinite(), step.signum()) {
        (true, _, _) => return invalid("step size cannot be NaN"),
        (_, true, _) => return invalid("step size cannot be infinity"),
        (_, _, Some(0) | None) => return invalid("step size cannot equal zero"),
        (_, _, Some(sign)) => sign,
    };
    let mut next = Some(start);
    Ok(std::iter::from_fn(move || {
        let x = next.take()?;
        let within = match direction > 0 {
            true => x <= stop,
            false => x >= stop,
        };
        if !within {
            return None;
        }
        // (A sum past numeric's range is past the stop too: the end.)
        next = x.checked_add(&step).ok();
        Some(x)
    }))
}

impl FunctionScan {
    /// The rows of this call and [`FunctionScan::also`]'s side by side:
    /// row `i` holds each call's row `i`, or NULLs past its end.
    /// The rows of `ts_token_type`, `ts_parse` and `ts_debug`
    /// (`ts_debug.rs`); `None` for other functions.
    fn text_search_rows(&self, args: &[Value]) -> Result<Option<Vec<Vec<Value>>>, SqlError> {
        let text = |v: &Value| match crate::types::cast(v.clone(), SqlType::Text)? {
            Value::Text(t) => Ok(t),
            other => Err(SqlError::new(
                "42883",
                format!("a text argument, not {}", other.type_name()),
            )),
        };
        Ok(Some(match (self.func, args) {
            (TableFunc::TsTokenType, [parser]) => crate::ts_debug::token_type_rows(parser)?,
            (TableFunc::TsParse, [parser, document]) => {
                crate::ts_debug::parse_rows(parser, &text(document)?)?
            }
            (TableFunc::TsDebug, [document]) => {
                crate::ts_debug::debug_rows(None, &text(document)?)?
            }
            (TableFunc::TsDebug, [config, document]) => {
                crate::ts_debug::debug_rows(Some(&text(config)?), &text(document)?)?
            }
            _ => return Ok(None),
        }))
    }

    /// [`FunctionScan::rows`] of a packed call (with no side-by-side
    /// ones): each row's columns one record, then the ordinal.
    fn packed_rows(
        &self,
        txn: &Transaction,
        env: &Env<'_>,
        limit: Option<usize>,
        keep: impl FnMut(&[Value]) -> Result<bool, SqlError>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let unpacked = FunctionScan {
            packed: false,
            ordinality: false,
            ..self.clone()
        };
        let rows = unpacked.rows(txn, env, None, every_row)?;
        self.numbered(
            txn,
            rows.into_iter().map(|f| vec![Value::Record(f)]),
            limit,
            keep,
        )
    }

    /// `rows` as this call gives them: each with its ordinal if
    /// `ordinality`, those `keep` takes, the first `limit` of them.
    fn numbered(
        &self,
        txn: &Transaction,
        rows: impl Iterator<Item = Vec<Value>>,
        limit: Option<usize>,
        mut keep: impl FnMut(&[Value]) -> Result<bool, SqlError>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let mut out = Vec::new();
        for (i, mut row) in rows.enumerate() {
            if limit.is_some_and(|l| out.len() >= l) {
                break;
            }
            crate::interrupt::every(txn, i as u64 + 1)?;
            if self.ordinality {
                row.push(Value::Int8(i as i64 + 1));
            }
            if keep(&row)? {
                out.push(row);
            }
        }
        Ok(out)
    }

    fn side_by_side_rows(
        &self,
        txn: &Transaction,
        env: &Env<'_>,
        limit: Option<usize>,
        keep: impl FnMut(&[Value]) -> Result<bool, SqlError>,
    ) -> Result<Vec<Vec<Value>>, SqlError> {
        let alone = FunctionScan {
            ordinality: false,
            also: Vec::new(),
            ..self.clone()
        };
        let calls = std::iter::once(&alone).chain(&self.also);
        let mut each = Vec::with_capacity(self.also.len() + 1);
        for call in calls {
            let rows = call.rows(txn, env, limit, every_row)?;
            each.push((call.types().len(), rows));
        }
        let longest = each.iter().map(|(_, rows)| rows.len()).max().unwrap_or(0);
        let rows = (0..longest).map(|i| {
            let mut row = Vec::new();
            for (width, rows) in &each {
                match rows.get(i) {
                    Some(r) => row.extend(r.iter().cloned()),
                    None => row.extend(std::iter::repeat_n(Value::Null, *width)),
                }
            }
            row
        });
        self.numbered(txn, rows, limit, keep)
    }
}

/// A filter that keeps every row (one type, so `rows` and
/// `side_by_side_rows` do not instantiate each other without end).
fn every_row(_: &[Value]) -> Result<bool, SqlError> {
    Ok(true)
}

/// `ROWS FROM (f(...), ...)`: each argument a call of a function that
/// returns rows (0A000 for another function, which PostgreSQL runs as one
/// row).
fn rows_from(
    args: &[FunctionArg],
    ordinality: bool,
    row_type: RowTypes<'_>,
) -> Result<FunctionScan, SqlError> {
    use sqlparser::ast::{Expr, FunctionArguments};
    let mut calls = Vec::with_capacity(args.len());
    for arg in args {
        let mut listed = None;
        let call = match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) if column_list(e)?.is_some() => {
                let (call, alias) = column_list(e)?.expect("a listed call");
                listed = Some(alias);
                call
            }
            FunctionArg::Unnamed(FunctionArgExpr::Expr(Expr::Function(f))) => f,
            other => {
                return Err(SqlError::syntax(format!(
                    "syntax error at or near \"{other}\""
                )));
            }
        };
        let FunctionArguments::List(list) = &call.args else {
            return Err(SqlError::unsupported(format!("ROWS FROM of {call}")));
        };
        if !is_table_function(&call.name) || !list.clauses.is_empty() || call.over.is_some() {
            return Err(SqlError::unsupported(format!(
                "ROWS FROM of {call} (a function that returns no rows)"
            )));
        }
        // `unnest(a, b)` is two calls side by side, as in PostgreSQL.
        let mut scan = FunctionScan::bind(&call.name, &list.args, false, row_type)?;
        if let Some(alias) = &listed {
            // Its column definition list (`AS (a int, ...)`).
            scan = scan.define(Some(alias), None)?;
        }
        let also = std::mem::take(&mut scan.also);
        calls.push(scan);
        calls.extend(also);
    }
    side_by_side(calls, ordinality)
}

/// `calls` run side by side, with one ordinal if `ordinality`.
fn side_by_side(calls: Vec<FunctionScan>, ordinality: bool) -> Result<FunctionScan, SqlError> {
    let mut calls = calls.into_iter();
    let Some(mut first) = calls.next() else {
        return Err(SqlError::syntax("syntax error at or near \")\""));
    };
    first.also = calls.collect();
    first.ordinality = ordinality;
    Ok(first)
}
