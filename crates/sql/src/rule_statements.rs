//! The rule statements (README "Rules"): `CREATE [OR REPLACE] RULE`,
//! `DROP RULE`, `ALTER RULE ... RENAME TO`, read here from their tokens
//! (sqlparser has none), and the definition text `pg_rules` and
//! `pg_get_ruledef` show. What a rule does to a statement is `rules.rs`.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::parse::Parsed;
use crate::position::Text;
use folio_catalog::{RULE_DELETE, RULE_INSERT, RULE_UPDATE, RuleDef};
use folio_db::Transaction;
use sqlparser::ast::{Expr, ObjectName, Statement};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// `CREATE [OR REPLACE] RULE name AS ON event TO relation [WHERE
/// condition] DO [ALSO | INSTEAD] {NOTHING | command | (command; ...)}`.
#[derive(Debug, Clone, PartialEq)]
pub struct Create {
    pub replace: bool,
    pub name: String,
    pub relation: ObjectName,
    /// `ev_type` (`RULE_*`; `None`: ON SELECT, refused when run).
    pub event: Option<u8>,
    pub instead: bool,
    /// The condition's text as written.
    pub condition: Option<String>,
    /// Each action's text as written.
    pub actions: Vec<String>,
}

/// `DROP RULE [IF EXISTS] name ON relation [CASCADE | RESTRICT]`, or
/// `ALTER RULE name ON relation RENAME TO new` (`rename`).
#[derive(Debug, Clone, PartialEq)]
pub struct Named {
    pub if_exists: bool,
    pub name: String,
    pub relation: ObjectName,
    pub rename: Option<String>,
}

fn parser(tokens: &[TokenWithSpan]) -> Parser<'static> {
    static DIALECT: PostgreSqlDialect = PostgreSqlDialect {};
    Parser::new(&DIALECT).with_tokens_with_locations(tokens.to_vec())
}

fn syntax(e: sqlparser::parser::ParserError) -> SqlError {
    SqlError::syntax(e.to_string())
}

fn is_word(token: &Token, word: &str) -> bool {
    matches!(token, Token::Word(w) if w.quote_style.is_none() && w.value.eq_ignore_ascii_case(word))
}

/// Whether `tokens` (a statement's, whitespace removed) begin `CREATE
/// [OR REPLACE] RULE`: the position after RULE.
pub fn create_at(tokens: &[Token]) -> Option<usize> {
    match tokens {
        [c, r, ..] if is_word(c, "create") && is_word(r, "rule") => Some(2),
        [c, o, p, r, ..]
            if is_word(c, "create")
                && is_word(o, "or")
                && is_word(p, "replace")
                && is_word(r, "rule") =>
        {
            Some(4)
        }
        _ => None,
    }
}

/// Reads a CREATE RULE whose tokens after `RULE` are `tokens`.
pub fn parse_create(
    tokens: &[TokenWithSpan],
    text: &Text<'_>,
    replace: bool,
) -> Result<Create, SqlError> {
    let near = |at: usize| match tokens.get(at) {
        Some(t) => text.near(t),
        None => text.at_end(),
    };
    let mut p = parser(tokens);
    let name = names::ident(&p.parse_identifier().map_err(syntax)?);
    p.expect_keywords(&[Keyword::AS, Keyword::ON])
        .map_err(syntax)?;
    let event = match p.parse_one_of_keywords(&[
        Keyword::INSERT,
        Keyword::UPDATE,
        Keyword::DELETE,
        Keyword::SELECT,
    ]) {
        Some(Keyword::INSERT) => Some(RULE_INSERT),
        Some(Keyword::UPDATE) => Some(RULE_UPDATE),
        Some(Keyword::DELETE) => Some(RULE_DELETE),
        Some(_) => None,
        None => return Err(near(p.index())),
    };
    p.expect_keyword(Keyword::TO).map_err(syntax)?;
    let relation = p.parse_object_name(false).map_err(syntax)?;
    let mut at = p.index();
    let condition = match tokens.get(at).map(|t| &t.token) {
        Some(t) if crate::parse::keyword(t) == Some(Keyword::WHERE) => {
            let start = at + 1;
            let end = (start..tokens.len())
                .find(|&i| is_word(&tokens[i].token, "do") && depth(&tokens[start..i]) == 0)
                .ok_or_else(|| text.at_end())?;
            if end == start {
                return Err(near(end));
            }
            at = end;
            Some(text.written(&tokens[start..end]))
        }
        _ => None,
    };
    if !tokens.get(at).is_some_and(|t| is_word(&t.token, "do")) {
        return Err(near(at));
    }
    at += 1;
    let mut instead = false;
    match tokens.get(at).map(|t| &t.token) {
        Some(t) if is_word(t, "instead") => {
            instead = true;
            at += 1;
        }
        Some(t) if is_word(t, "also") => at += 1,
        _ => {}
    }
    let rest = &tokens[at..];
    let actions = match rest.first().map(|t| &t.token) {
        None => return Err(text.at_end()),
        Some(t) if is_word(t, "nothing") => match rest.get(1) {
            None => Vec::new(),
            Some(extra) => return Err(text.near(extra)),
        },
        Some(Token::LParen) => {
            if rest.last().map(|t| &t.token) != Some(&Token::RParen) || depth(rest) != 0 {
                return Err(text.at_end());
            }
            let inner = &rest[1..rest.len() - 1];
            let mut actions = Vec::new();
            let mut start = 0;
            for i in 0..=inner.len() {
                let ends = i == inner.len()
                    || (inner[i].token == Token::SemiColon && depth(&inner[start..i]) == 0);
                if ends {
                    if i > start {
                        actions.push(text.written(&inner[start..i]));
                    }
                    start = i + 1;
                }
            }
            actions
        }
        Some(_) => vec![text.written(rest)],
    };
    Ok(Create {
        replace,
        name,
        relation,
        event,
        instead,
        condition,
        actions,
    })
}

/// How many parentheses `tokens` leave open.
fn depth(tokens: &[TokenWithSpan]) -> i64 {
    (tokens.iter()).fold(0, |d, t| match t.token {
        Token::LParen => d + 1,
        Token::RParen => d - 1,
        _ => d,
    })
}

/// Reads `DROP RULE ...` (`tokens` after RULE), or `ALTER RULE ...`.
pub fn parse_named(tokens: &[TokenWithSpan], alter: bool) -> Result<Named, SqlError> {
    let mut p = parser(tokens);
    let if_exists = !alter && p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
    let name = names::ident(&p.parse_identifier().map_err(syntax)?);
    p.expect_keyword(Keyword::ON).map_err(syntax)?;
    let relation = p.parse_object_name(false).map_err(syntax)?;
    let rename = match alter {
        true => {
            p.expect_keywords(&[Keyword::RENAME, Keyword::TO])
                .map_err(syntax)?;
            Some(names::ident(&p.parse_identifier().map_err(syntax)?))
        }
        false => {
            let _ = p.parse_one_of_keywords(&[Keyword::CASCADE, Keyword::RESTRICT]);
            None
        }
    };
    match p.peek_token().token {
        Token::EOF => Ok(Named {
            if_exists,
            name,
            relation,
            rename,
        }),
        other => Err(SqlError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// The relation a rule statement names: its catalog name, oid and
/// column names (42P01 if it is neither a table nor a view).
fn target(
    cx: &Ctx<'_>,
    txn: &Transaction,
    name: &ObjectName,
) -> Result<(String, u64, Vec<String>), SqlError> {
    let stored = crate::temp_tables::existing_name(cx, txn, name)?;
    if let Some(view) = cx.db.catalog().view(txn, &stored)? {
        if view.def.materialized {
            let bare = folio_catalog::unqualified(&stored).to_string();
            return Err(
                SqlError::new("42809", format!("relation \"{bare}\" cannot have rules"))
                    .with_detail("This operation is not supported for materialized views."),
            );
        }
        let columns = view.def.columns.iter().map(|c| c.name.clone()).collect();
        return Ok((stored, view.def.oid, columns));
    }
    let relation = crate::access::relation(cx, txn, &stored)?;
    let columns = relation
        .def
        .columns
        .iter()
        .map(|c| c.name.clone())
        .collect();
    Ok((stored, relation.def.oid, columns))
}

/// A rule condition's unqualified column names qualified as PostgreSQL
/// reads them: NEW's in an ON INSERT rule, OLD's in an ON DELETE one,
/// ambiguous in an ON UPDATE one (42702).
fn qualify_condition(expr: &mut Expr, event: u8, columns: &[String]) -> Result<(), SqlError> {
    let mut error = None;
    let _ = sqlparser::ast::visit_expressions_mut(expr, |e| {
        if let Expr::Identifier(id) = e
            && columns.contains(&names::ident(id))
        {
            match event {
                RULE_INSERT | RULE_DELETE => {
                    let which = if event == RULE_INSERT { "new" } else { "old" };
                    *e = Expr::CompoundIdentifier(vec![
                        sqlparser::ast::Ident::new(which),
                        id.clone(),
                    ]);
                }
                _ => {
                    error = Some(SqlError::new(
                        "42702",
                        format!("column reference \"{}\" is ambiguous", names::ident(id)),
                    ))
                }
            }
        }
        std::ops::ControlFlow::<()>::Continue(())
    });
    match error {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The one action statement `text` is (an INSERT, UPDATE, DELETE or
/// query; 42601 otherwise).
pub fn action(text: &str) -> Result<Statement, SqlError> {
    let mut parsed = crate::parse::statements(text)?;
    match (parsed.pop(), parsed.is_empty()) {
        (Some(Parsed::Sql(statement)), true)
            if matches!(
                *statement,
                Statement::Insert(_)
                    | Statement::Update { .. }
                    | Statement::Delete(_)
                    | Statement::Query(_)
            ) =>
        {
            Ok(*statement)
        }
        _ => Err(SqlError::syntax(format!(
            "syntax error at or near \"{}\"",
            text.split_whitespace().next().unwrap_or("")
        ))),
    }
}

/// A rule's condition text read as an expression.
pub fn condition(text: &str) -> Result<Expr, SqlError> {
    let tokens = crate::parse::plain_tokens(text)?;
    let mut p = parser(&tokens);
    let expr = p.parse_expr().map_err(syntax)?;
    match p.peek_token().token {
        Token::EOF => Ok(expr),
        other => Err(SqlError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// Runs CREATE RULE.
pub fn create(cx: &Ctx<'_>, txn: &mut Transaction, create: &Create) -> Result<Output, SqlError> {
    let Some(event) = create.event else {
        return Err(SqlError::unsupported("a rule ON SELECT"));
    };
    let (stored, oid, columns) = target(cx, txn, &create.relation)?;
    let condition = match &create.condition {
        Some(text) => {
            let mut expr = condition(text)?;
            qualify_condition(&mut expr, event, &columns)?;
            crate::rules::check_references(&expr, event)?;
            Some(expr.to_string())
        }
        None => None,
    };
    let mut actions = Vec::new();
    for text in &create.actions {
        let statement = action(text)?;
        crate::rules::check_action(
            &statement,
            event,
            create.instead,
            condition.is_some(),
            create.actions.len(),
        )?;
        crate::rules::check_returning(cx, txn, &statement, columns.len())?;
        actions.push(statement.to_string());
    }
    let def = RuleDef {
        oid: 0,
        relation: oid,
        name: create.name.clone(),
        event,
        instead: create.instead,
        condition,
        actions,
    };
    crate::rules::check_binding(cx, txn, &create.relation, &def)?;
    cx.db
        .catalog()
        .create_rule(txn, &def, &stored, create.replace)?;
    Ok(Output::command("CREATE RULE"))
}

/// Runs DROP RULE or ALTER RULE ... RENAME TO.
pub fn drop_or_rename(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    named: &Named,
) -> Result<Output, SqlError> {
    let tag = match named.rename {
        Some(_) => "ALTER RULE",
        None => "DROP RULE",
    };
    let (stored, oid) = match target(cx, txn, &named.relation) {
        Ok((stored, oid, _)) => (stored, oid),
        Err(e) if e.code == "42P01" && named.if_exists => {
            notices.push(Notice::info(format!(
                "relation \"{}\" does not exist, skipping",
                names::relation(&named.relation)?
            )));
            return Ok(Output::command(tag));
        }
        Err(e) => return Err(e),
    };
    if cx.db.catalog().view(txn, &stored)?.is_some() {
        view_return_rule(&stored, oid, named)?;
    }
    let found =
        (crate::rules::in_scope().iter()).any(|r| r.relation == oid && r.name == named.name);
    if !found && named.if_exists {
        notices.push(Notice::info(format!(
            "rule \"{}\" for relation \"{}\" does not exist, skipping",
            named.name,
            folio_catalog::unqualified(&stored)
        )));
        return Ok(Output::command(tag));
    }
    match &named.rename {
        Some(new) => cx
            .db
            .catalog()
            .rename_rule(txn, oid, &stored, &named.name, new)?,
        None => cx.db.catalog().drop_rule(txn, oid, &stored, &named.name)?,
    }
    Ok(Output::command(tag))
}

/// PostgreSQL's errors for a view's `_RETURN` rule (its ON SELECT rule,
/// which folio does not store as a rule): it cannot be dropped (2BP01) or
/// renamed (42P17), and no other rule may take its name (42710).
fn view_return_rule(stored: &str, oid: u64, named: &Named) -> Result<(), SqlError> {
    const RETURN: &str = "_RETURN";
    let view = folio_catalog::unqualified(stored);
    match (&named.rename, named.name == RETURN) {
        (None, true) => Err(SqlError::new(
            "2BP01",
            format!("cannot drop rule {RETURN} on view {view} because view {view} requires it"),
        )
        .with_hint(format!("You can drop view {view} instead."))),
        (Some(new), true) if new == RETURN => Err(SqlError::new(
            "42710",
            format!("rule \"{RETURN}\" for relation \"{view}\" already exists"),
        )),
        (Some(_), true) => Err(SqlError::new(
            "42P17",
            "renaming an ON SELECT rule is not allowed",
        )),
        (Some(new), false)
            if new == RETURN
                && (crate::rules::in_scope().iter())
                    .any(|r| r.relation == oid && r.name == named.name) =>
        {
            Err(SqlError::new(
                "42710",
                format!("rule \"{RETURN}\" for relation \"{view}\" already exists"),
            ))
        }
        _ => Ok(()),
    }
}

/// `rule`'s `pg_rewrite` row. `ev_qual` and `ev_action` hold the
/// condition's and actions' SQL text (PostgreSQL's hold node trees),
/// `<>` for none as PostgreSQL's; a rule is always enabled (`O`).
pub fn rewrite_row(rule: &RuleDef) -> Vec<folio_row::Value> {
    use folio_row::Value;
    let text = |s: &str| Value::Text(s.into());
    let actions: Vec<String> = (rule.actions.iter())
        .map(|a| format!("{};", crate::conflict_target::written(a)))
        .collect();
    let actions = match actions.is_empty() {
        true => "<>".to_string(),
        false => actions.join(" "),
    };
    vec![
        Value::Oid(rule.oid as u32),
        text(&rule.name),
        Value::Oid(rule.relation as u32),
        text(&char::from(rule.event).to_string()),
        text("O"),
        Value::Bool(rule.instead),
        text(rule.condition.as_deref().unwrap_or("<>")),
        text(&actions),
    ]
}

/// The definition `pg_rules.definition` and `pg_get_ruledef(oid
/// [, pretty])` show of `rule` on relation `relation` (its catalog
/// name), in PostgreSQL's layout (the actions as folio prints
/// statements). The plain form qualifies the relation and parenthesizes
/// each operator of the condition; the pretty form names a relation in
/// `public` bare and does not.
pub fn definition(rule: &RuleDef, relation: &str, pretty: bool) -> String {
    let event = match rule.event {
        RULE_INSERT => "INSERT",
        RULE_UPDATE => "UPDATE",
        _ => "DELETE",
    };
    let mut out = format!(
        "CREATE RULE {} AS\n    ON {event} TO {}",
        names::written(&rule.name),
        names::stored_written(relation, !pretty)
    );
    match &rule.condition {
        Some(condition) if pretty => out.push_str(&format!("\n   WHERE {condition}")),
        Some(condition) => out.push_str(&format!(
            "\n   WHERE {}",
            crate::deparse::parenthesized(condition)
        )),
        None => {}
    }
    out.push_str(match rule.instead {
        true => " DO INSTEAD",
        false => " DO",
    });
    let actions: Vec<String> = (rule.actions.iter())
        .map(|a| crate::conflict_target::written(a))
        .collect();
    match actions.as_slice() {
        [] => out.push_str(" NOTHING;"),
        [one] => out.push_str(&format!("  {one};")),
        many => {
            out.push_str(" (");
            for action in many {
                out.push_str(&format!(" {action};\n"));
            }
            out.push_str(");");
        }
    }
    out
}
