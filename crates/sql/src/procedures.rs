//! Procedures (README "Procedures"): `CREATE [OR REPLACE] PROCEDURE`,
//! `CALL` and `DROP PROCEDURE`.
//!
//! A procedure is a function row of kind `p` (folio-catalog
//! `FunctionDef::procedure`), kept apart from the functions in the
//! statement's scope (`ObjectLists::procedures`), so no expression calls
//! one (42809, [`called_as_function`]) and CALL calls nothing else. Its
//! body runs through the PL/pgSQL interpreter: a SQL body as a block of
//! its statements (`plpgsql::parse::sql_body`), in the calling
//! statement's transaction. [`call`] chooses the procedure from the
//! call's arguments as PostgreSQL does: positional ones first, then
//! `name => value`, defaults for the rest; OUT arguments are written
//! (their types count) but not evaluated, and the OUT and INOUT values
//! are the row CALL returns.

use crate::context::Ctx;
use crate::error::SqlError;
use crate::names;
use crate::output::{Column, Notice, Output};
use crate::scalar::{self, Env, Scalar};
use folio_catalog::FunctionDef;
use folio_db::Transaction;
use folio_row::{SqlType, Value};
use sqlparser::ast::{Expr, Function, Statement};
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, TokenWithSpan};

/// Where `PROCEDURE` stands in `CREATE [OR REPLACE] PROCEDURE ...`
/// (`tokens`: the statement's, without whitespace), if the statement is
/// one.
pub fn keyword_at(tokens: &[TokenWithSpan]) -> Option<usize> {
    let keyword = |i: usize| match tokens.get(i).map(|t| &t.token) {
        Some(Token::Word(w)) if w.quote_style.is_none() => Some(w.keyword),
        _ => None,
    };
    let at = match keyword(1)? {
        Keyword::OR if keyword(2)? == Keyword::REPLACE => 3,
        _ => 1,
    };
    (keyword(0)? == Keyword::CREATE && keyword(at)? == Keyword::PROCEDURE).then_some(at)
}

/// How a procedure's `BEGIN ATOMIC` body is stored: its statements'
/// text after this prefix (`pg_proc.prosrc` shows it empty, as
/// PostgreSQL's, which keeps such bodies parsed).
pub const ATOMIC_PREFIX: &str = "BEGIN ATOMIC\n";

/// Takes a `BEGIN ATOMIC ... END` body out of a CREATE's `tokens` (the
/// statement's, without whitespace), putting `AS ''` in its place: the
/// text of the statements between, if there is such a body.
pub fn take_atomic_body(
    tokens: &mut Vec<TokenWithSpan>,
    text: &crate::position::Text<'_>,
) -> Result<Option<String>, SqlError> {
    let word = |t: &TokenWithSpan, w: &str| matches!(&t.token, Token::Word(x) if x.quote_style.is_none() && x.value.eq_ignore_ascii_case(w));
    let Some(begin) = (1..tokens.len())
        .find(|&i| word(&tokens[i - 1], "begin") && word(&tokens[i], "atomic"))
        .map(|i| i - 1)
    else {
        return Ok(None);
    };
    let last = tokens.len() - 1;
    if last < begin + 2 || !word(&tokens[last], "end") {
        return Err(text.at_end());
    }
    let body = match last > begin + 2 {
        true => text.written(&tokens[begin + 2..last]),
        false => String::new(),
    };
    tokens.truncate(begin);
    tokens.push(TokenWithSpan::wrap(Token::make_keyword("AS")));
    tokens.push(TokenWithSpan::wrap(
        Token::SingleQuotedString(String::new()),
    ));
    Ok(Some(body))
}

/// `CREATE [OR REPLACE] PROCEDURE`, read as a CREATE FUNCTION; `atomic`:
/// the statements of its `BEGIN ATOMIC` body, each of which must be a
/// query or a row change (PostgreSQL's 0A000 for others).
pub fn create(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    create: &Statement,
    atomic: Option<&str>,
) -> Result<Output, SqlError> {
    let Statement::CreateFunction(create) = create else {
        return Err(SqlError::syntax(format!(
            "syntax error at or near \"{create}\""
        )));
    };
    let Some(atomic) = atomic else {
        return crate::sql_functions::create(cx, txn, create, true);
    };
    if create
        .language
        .as_ref()
        .is_some_and(|l| names::ident(l) != "sql")
    {
        return Err(SqlError::new(
            "42P13",
            "SQL-standard function body can only be used with LANGUAGE SQL",
        ));
    }
    for parsed in crate::parse::statements(atomic)? {
        match &parsed {
            crate::parse::Parsed::Sql(s) if crate::statement::plannable(s) => {}
            other => {
                let tag = atomic_statement_tag(other);
                return Err(SqlError::new(
                    "0A000",
                    format!("{tag} is not yet supported in unquoted SQL function body"),
                ));
            }
        }
    }
    let mut create = create.clone();
    create.language = Some(sqlparser::ast::Ident::new("sql"));
    create.function_body = Some(sqlparser::ast::CreateFunctionBody::AsBeforeOptions(
        Expr::value(sqlparser::ast::Value::SingleQuotedString(format!(
            "{ATOMIC_PREFIX}{atomic}"
        ))),
    ));
    crate::sql_functions::create(cx, txn, &create, true)
}

/// The command a statement of a `BEGIN ATOMIC` body is, as PostgreSQL's
/// message names it (its first two words).
fn atomic_statement_tag(parsed: &crate::parse::Parsed) -> String {
    let text = match parsed {
        crate::parse::Parsed::Sql(s) => s.to_string(),
        other => format!("{other:?}"),
    };
    let words: Vec<&str> = text.split_whitespace().take(2).collect();
    words.join(" ").to_uppercase()
}

/// PostgreSQL's rules for what a procedure's definition may say.
pub fn check_definition(def: &FunctionDef) -> Result<(), SqlError> {
    if def.strict || def.volatility != b'v' {
        return Err(SqlError::new(
            "42P13",
            "invalid attribute in procedure definition",
        ));
    }
    Ok(())
}

/// PostgreSQL's rule for a SQL procedure's statements (`block`): a CALL
/// of a procedure with OUT or INOUT arguments is 0A000 (a SQL body has
/// no variables to put their values into).
pub fn check_sql_body(block: &crate::plpgsql::parse::Block) -> Result<(), SqlError> {
    use crate::plpgsql::parse::Stmt;
    for stmt in &block.body {
        let (Stmt::Sql { sql, .. } | Stmt::Perform(sql)) = stmt else {
            continue;
        };
        if let crate::parse::Parsed::Sql(statement) = &*sql.parsed
            && let Statement::Call(call) = &**statement
            && let Some((def, ..)) = chosen_by_places(call)
            && (0..def.args.len()).any(|k| def.is_output(k))
        {
            return Err(SqlError::new(
                "0A000",
                "calling procedures with output arguments is not supported in SQL functions",
            ));
        }
    }
    Ok(())
}

/// What messages call a routine of this kind.
pub fn kind_word(procedure: bool) -> &'static str {
    match procedure {
        true => "procedure",
        false => "function",
    }
}

/// 42809 when `def` is not of the kind a DROP names.
pub fn check_kind(def: &FunctionDef, procedure: bool) -> Result<(), SqlError> {
    if def.procedure == procedure {
        return Ok(());
    }
    let types: Vec<String> = (def.inputs())
        .map(|i| crate::catalog_functions::format_type(i64::from(def.args[i].1), None))
        .collect();
    Err(SqlError::new(
        "42809",
        format!(
            "{}({}) is not a {}",
            crate::sql_functions::names_of(&def.name),
            types.join(","),
            kind_word(procedure)
        ),
    ))
}

/// The procedures in the statement's scope.
fn in_scope() -> std::sync::Arc<Vec<FunctionDef>> {
    crate::object_scope::with(|lists| lists.map(|l| l.procedures.clone()).unwrap_or_default())
}

/// Whether a procedure is named `name` (folded, as a call writes it).
pub fn named(name: &str) -> bool {
    in_scope()
        .iter()
        .any(|d| d.name == name || crate::sql_functions::names_of(&d.name) == name)
}

/// 42809: a call in an expression (`shown`: its name and argument types)
/// names a procedure.
pub fn called_as_function(shown: String) -> SqlError {
    SqlError::new("42809", format!("{shown} is a procedure"))
        .with_hint("To call a procedure, use CALL.")
}

/// One argument of a call: written at a place or by name.
struct Written {
    name: Option<String>,
    bound: Scalar,
    /// Its type, `None` for an untyped literal or NULL.
    ty: Option<SqlType>,
}

/// Where each of a procedure's arguments comes from.
#[derive(Clone)]
enum Source {
    /// The call's argument `i`.
    Written(usize),
    /// The procedure's default `i`.
    Default(usize),
    /// A VARIADIC argument's array of the call's arguments `list`.
    Variadic(Vec<usize>),
}

/// `CALL name(args)`: the procedure the arguments choose, run; its OUT
/// and INOUT arguments' values as a row, if it has any.
pub fn call(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    f: &Function,
    params: &[Value],
) -> Result<Output, SqlError> {
    // Taken first, so that nothing the arguments run inherits it.
    let nonatomic = cx.nonatomic.take();
    crate::stack::check()?;
    let name = names::relation(&f.name)?;
    let written = written(f, &mut |expr| evaluate(cx, txn, notices, expr, params))?;
    let types: Vec<String> = (written.iter())
        .map(|w| {
            let ty = w.ty.map_or_else(|| "unknown".to_string(), |t| t.name());
            match &w.name {
                Some(name) => format!("{name} => {ty}"),
                None => ty,
            }
        })
        .collect();
    let shown = format!(
        "{}({})",
        crate::sql_functions::names_of(&name),
        types.join(", ")
    );
    let all = in_scope();
    let of_name: Vec<&FunctionDef> = all.iter().filter(|d| d.name == name).collect();
    if of_name.is_empty() {
        let bare = crate::sql_functions::names_of(&name);
        if crate::functions::exists(bare)
            || crate::system_proc::is_builtin(bare)
            || crate::sql_functions::resolve(&f.name, crate::sql_functions::call_arity(&f.args))
                .is_some()
        {
            return Err(
                SqlError::new("42809", format!("{shown} is not a procedure"))
                    .with_hint("To call a function, use SELECT."),
            );
        }
        return Err(no_procedure(&shown));
    }
    let mut fits = of_name
        .into_iter()
        .filter_map(|d| sources(d, &written).map(|s| (d, s)));
    let (def, sources) = match (fits.next(), fits.next()) {
        (Some(one), None) => one,
        (None, _) => return Err(no_procedure(&shown)),
        (Some(_), Some(_)) => {
            return Err(
                SqlError::new("42725", format!("procedure {shown} is not unique")).with_hint(
                    "Could not choose a best candidate procedure. \
                     You might need to add explicit type casts.",
                ),
            );
        }
    };
    let env = Env {
        params,
        ..Env::at(cx.now())
    };
    let mut args = Vec::with_capacity(def.args.len());
    for (k, source) in sources.iter().enumerate() {
        let declared = def.args[k].1;
        let value_type = |w: &Written| w.ty.unwrap_or(SqlType::Text);
        let (bound, ty) = match source {
            Source::Written(i) => (written[*i].bound.clone(), value_type(&written[*i])),
            Source::Default(i) => {
                let expr = default_expr(&def.defaults[*i])?;
                let bound = scalar::bind(&expr, &[] as &[SqlType])?;
                let ty = bound.ty_in(&[] as &[SqlType]);
                (bound, ty)
            }
            Source::Variadic(list) => {
                args.push(variadic_array(def, k, list, &written, &env)?);
                continue;
            }
        };
        let ty = match crate::polymorphic::is_polymorphic(declared) {
            true => ty,
            false => crate::user_types::of_oid(declared, def.args[k].2).ok_or_else(|| {
                SqlError::new("42704", format!("type with oid {declared} does not exist"))
            })?,
        };
        // An OUT argument is written, not evaluated.
        let value = match def.mode(k) {
            b'o' => Value::Null,
            _ => {
                let bound = match scalar::is_unknown(&bound) {
                    true => scalar::fit_unknown(bound, ty)?,
                    false => bound,
                };
                crate::types::cast(bound.eval(&[], &env)?, ty)?
            }
        };
        args.push((value, ty));
    }
    resolve_polymorphic(def, &mut args);
    let outputs = crate::plpgsql::call_procedure(cx, txn, notices, def, args, nonatomic)?;
    if outputs.is_empty() {
        return Ok(Output::command("CALL"));
    }
    let columns = outputs
        .iter()
        .map(|(name, ty, _)| Column {
            name: name.clone(),
            type_oid: ty.oid(),
        })
        .collect();
    Ok(Output::Rows {
        columns,
        rows: vec![outputs.into_iter().map(|(_, _, v)| v).collect()],
        tag: "CALL".into(),
        style: None,
    })
}

/// The array a VARIADIC argument `k` of `def` takes from the call's
/// arguments `list`, each cast to its element type.
fn variadic_array(
    def: &FunctionDef,
    k: usize,
    list: &[usize],
    written: &[Written],
    env: &Env<'_>,
) -> Result<(Value, SqlType), SqlError> {
    let declared = def.args[k].1;
    let (ty, element) = match crate::polymorphic::is_polymorphic(declared) {
        // `anyarray`: the first argument's type.
        true => {
            let element = written[list[0]].ty.unwrap_or(SqlType::Text);
            (element.array_of().unwrap_or(SqlType::Text), element)
        }
        false => {
            let ty = crate::user_types::of_oid(declared, def.args[k].2).ok_or_else(|| {
                SqlError::new("42704", format!("type with oid {declared} does not exist"))
            })?;
            (ty, ty.element().unwrap_or(SqlType::Text))
        }
    };
    let mut values = Vec::with_capacity(list.len());
    for i in list {
        let bound = match scalar::is_unknown(&written[*i].bound) {
            true => scalar::fit_unknown(written[*i].bound.clone(), element)?,
            false => written[*i].bound.clone(),
        };
        values.push(crate::types::cast(bound.eval(&[], env)?, element)?);
    }
    Ok((Value::array(values), ty))
}

/// The procedure `call` names, chosen by the names and places of its
/// arguments alone (their types unknown: before it runs), where each of
/// its arguments comes from, and the call's argument expressions.
fn chosen_by_places(call: &Function) -> Option<(FunctionDef, Vec<Source>, Vec<Expr>)> {
    let name = names::relation(&call.name).ok()?;
    let args = listed(call).ok()?;
    let written: Vec<Written> = (args.iter())
        .map(|(name, _)| Written {
            name: name.clone(),
            bound: Scalar::Const(Value::Null),
            ty: None,
        })
        .collect();
    let all = in_scope();
    let (def, sources) = (all.iter())
        .filter(|d| d.name == name)
        .find_map(|d| sources(d, &written).map(|s| (d.clone(), s)))?;
    Some((
        def,
        sources,
        args.into_iter().map(|(_, e)| e.clone()).collect(),
    ))
}

/// For each OUT and INOUT argument of the procedure `call` names, in
/// order, the call's argument written in its place (`None`: a default;
/// PL/pgSQL's CALL puts the results into the variables written there).
pub fn output_arguments(call: &Function) -> Result<Vec<Option<Expr>>, SqlError> {
    let Some((def, sources, args)) = chosen_by_places(call) else {
        return Ok(Vec::new());
    };
    Ok((sources.iter().enumerate())
        .filter(|(k, _)| def.is_output(*k))
        .map(|(_, s)| match s {
            Source::Written(i) => Some(args[*i].clone()),
            _ => None,
        })
        .collect())
}

/// What a Describe of CALL `call` reports before it runs: the types of
/// the parameters (`$n`) written as its arguments (`types`, filled where
/// unknown) and the columns it returns (its OUT and INOUT arguments';
/// `None` when it returns none or names no procedure).
pub fn describe(call: &Function, types: &mut [Option<SqlType>]) -> Option<Vec<Column>> {
    let (def, sources, args) = chosen_by_places(call)?;
    for (k, source) in sources.iter().enumerate() {
        if let Source::Written(i) = source
            && let Expr::Value(v) = &args[*i]
            && let sqlparser::ast::Value::Placeholder(p) = &v.value
            && let Some(n) = p.strip_prefix('$').and_then(|n| n.parse::<usize>().ok())
            && let Some(slot) = n.checked_sub(1).and_then(|n| types.get_mut(n))
            && slot.is_none()
        {
            *slot = crate::user_types::of_oid(def.args[k].1, def.args[k].2);
        }
    }
    let columns: Vec<Column> = (def.args.iter().enumerate())
        .filter(|(k, _)| def.is_output(*k))
        .map(|(_, (name, oid, typmod))| Column {
            name: match name.is_empty() {
                true => {
                    crate::user_types::of_oid(*oid, *typmod).map_or_else(String::new, |t| t.name())
                }
                false => name.clone(),
            },
            type_oid: *oid,
        })
        .collect();
    (!columns.is_empty()).then_some(columns)
}

/// PostgreSQL's 0A000 for a CALL argument holding a subquery.
fn refuse_subquery(expr: &Expr) -> Result<(), SqlError> {
    let found = sqlparser::ast::visit_expressions(expr, |e| match e {
        Expr::Subquery(_) | Expr::Exists { .. } | Expr::InSubquery { .. } => {
            std::ops::ControlFlow::Break(())
        }
        _ => std::ops::ControlFlow::Continue(()),
    });
    match found {
        std::ops::ControlFlow::Break(()) => Err(SqlError::new(
            "0A000",
            "cannot use subquery in CALL argument",
        )),
        std::ops::ControlFlow::Continue(()) => Ok(()),
    }
}

/// Argument `expr` of a CALL evaluated as the query `SELECT expr` (in the
/// call's parameters `params`), which runs what the planner runs: calls of
/// SQL and PL/pgSQL functions. Its value and type.
fn evaluate(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    expr: &Expr,
    params: &[Value],
) -> Result<(Value, SqlType), SqlError> {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    let query = sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(&format!("SELECT {expr}"))
        .and_then(|mut p| p.parse_statement())
        .map_err(|e| SqlError::syntax(e.to_string()))?;
    match crate::session::run_with_params(cx, txn, notices, &query, params)? {
        Output::Rows { columns, rows, .. } if columns.len() == 1 => {
            let ty = crate::user_types::of_oid(columns[0].type_oid, -1).unwrap_or(SqlType::Text);
            let value = rows.into_iter().next().and_then(|r| r.into_iter().next());
            Ok((value.unwrap_or(Value::Null), ty))
        }
        _ => Err(SqlError::new(
            "42601",
            format!("argument {expr} is not a value"),
        )),
    }
}

/// 42883 for a call no procedure fits.
fn no_procedure(shown: &str) -> SqlError {
    SqlError::new("42883", format!("procedure {shown} does not exist")).with_hint(
        "No procedure matches the given name and argument types. \
         You might need to add explicit type casts.",
    )
}

/// An argument the expression binder does not take (a call of a
/// user-defined function): its value and type.
type Evaluate<'e> = dyn FnMut(&Expr) -> Result<(Value, SqlType), SqlError> + 'e;

/// The call's arguments, bound; one the expression binder refuses is
/// evaluated by `evaluate` first, and stands as its value.
fn written(f: &Function, evaluate: &mut Evaluate<'_>) -> Result<Vec<Written>, SqlError> {
    let mut out = Vec::new();
    for (name, expr) in listed(f)? {
        let bound = match scalar::bind(expr, &[] as &[SqlType]) {
            Ok(bound) => bound,
            Err(_) => {
                refuse_subquery(expr)?;
                let (value, ty) = evaluate(expr)?;
                out.push(Written {
                    name,
                    bound: Scalar::Const(value),
                    ty: Some(ty),
                });
                continue;
            }
        };
        let ty = match &bound {
            // A parameter of the extended protocol's is typed by its place.
            Scalar::Const(Value::Text(_) | Value::Null) | Scalar::Param(_) => None,
            b if scalar::is_unknown(b) => None,
            b => Some(b.ty_in(&[] as &[SqlType])),
        };
        out.push(Written { name, bound, ty });
    }
    Ok(out)
}

/// The call's arguments as written: each one's name (`name => value`)
/// and expression (`call_arguments::listed`, the one owner of the
/// grammar's checks); `VARIADIC arr` is 0A000 in a CALL.
fn listed(f: &Function) -> Result<Vec<(Option<String>, &Expr)>, SqlError> {
    let listed = crate::call_arguments::listed(&f.args)?;
    if listed.variadic {
        return Err(SqlError::unsupported("VARIADIC arguments of a CALL"));
    }
    Ok(listed.args)
}

/// Where each of `def`'s arguments comes from in a call of `written`, if
/// the call fits it: every argument given once, at its place or by its
/// name, or an input argument's default; each written one of a type that
/// goes to the argument's implicitly.
fn sources(def: &FunctionDef, written: &[Written]) -> Option<Vec<Source>> {
    let n = def.args.len();
    let mut sources: Vec<Option<Source>> = vec![None; n];
    let variadic = (0..n).find(|k| def.mode(*k) == b'v');
    for (i, w) in written.iter().enumerate() {
        // Positional arguments from the VARIADIC one's place on are its
        // elements.
        if let Some(v) = variadic
            && w.name.is_none()
            && i >= v
        {
            match &mut sources[v] {
                None => sources[v] = Some(Source::Variadic(vec![i])),
                Some(Source::Variadic(list)) => list.push(i),
                Some(_) => return None,
            }
            continue;
        }
        let k = match &w.name {
            None => i,
            Some(name) => def.args.iter().position(|a| a.0 == *name)?,
        };
        if k >= n || sources[k].is_some() {
            return None;
        }
        sources[k] = Some(Source::Written(i));
    }
    for k in def.inputs() {
        if sources[k].is_none() {
            sources[k] = Some(Source::Default(def.default_index(k)?));
        }
    }
    let sources: Vec<Source> = sources.into_iter().collect::<Option<_>>()?;
    let goes_to = |i: usize, declared: u32| match written[i].ty {
        None => true,
        Some(ty) => {
            crate::polymorphic::is_polymorphic(declared)
                || crate::set_types::implicit_cast(ty, declared)
        }
    };
    let fits = sources.iter().enumerate().all(|(k, s)| match s {
        Source::Written(i) => goes_to(*i, def.args[k].1),
        Source::Default(_) => true,
        Source::Variadic(list) => {
            let element = crate::user_types::of_oid(def.args[k].1, def.args[k].2)
                .and_then(|t| t.element())
                .map_or(def.args[k].1, |t| t.oid());
            list.iter().all(|i| goes_to(*i, element))
        }
    });
    fits.then_some(sources)
}

/// The expression of a stored default.
fn default_expr(text: &str) -> Result<Expr, SqlError> {
    let dialect = sqlparser::dialect::PostgreSqlDialect {};
    sqlparser::parser::Parser::new(&dialect)
        .try_with_sql(text)
        .and_then(|mut p| p.parse_expr())
        .map_err(|e| SqlError::syntax(e.to_string()))
}

/// The types of `args` of polymorphic arguments made the call's, as
/// `polymorphic::resolve` resolves them from the input arguments that
/// are not NULL; each value cast to its type (an OUT argument's NULL
/// too). Arguments that do not fit, or leave a type undetermined, keep
/// their own types.
fn resolve_polymorphic(def: &FunctionDef, args: &mut [(Value, SqlType)]) {
    let declared: Vec<u32> = def.args.iter().map(|a| a.1).collect();
    if !declared
        .iter()
        .any(|o| crate::polymorphic::is_polymorphic(*o))
    {
        return;
    }
    let actual: Vec<crate::polymorphic::Actual> = (args.iter().enumerate())
        .map(|(k, (value, ty))| (def.is_input(k) && *value != Value::Null).then_some(*ty))
        .collect();
    let Ok(Some(resolved)) = crate::polymorphic::resolve(&declared, &actual, &[]) else {
        return;
    };
    for (arg, &oid) in args.iter_mut().zip(&declared) {
        if !crate::polymorphic::is_polymorphic(oid) {
            continue;
        }
        let Some(ty) = (resolved.concrete(oid, -1).ok())
            .and_then(|(oid, typmod)| crate::user_types::of_oid(oid, typmod))
        else {
            continue;
        };
        arg.1 = ty;
        if arg.0 != Value::Null
            && let Ok(v) = crate::types::cast(arg.0.clone(), ty)
        {
            arg.0 = v;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn statement_tokens(sql: &str) -> Vec<TokenWithSpan> {
        (crate::position::tokens(sql).into_iter())
            .filter(|t| !matches!(t.token, Token::Whitespace(_)))
            .collect()
    }

    // Proves the PROCEDURE keyword is found after CREATE and after CREATE
    // OR REPLACE, and nowhere else.
    #[test]
    fn the_keyword_is_found_where_create_puts_it() {
        assert_eq!(
            keyword_at(&statement_tokens("create procedure p() as ''")),
            Some(1)
        );
        assert_eq!(
            keyword_at(&statement_tokens("CREATE OR REPLACE PROCEDURE p() as ''")),
            Some(3)
        );
        assert_eq!(keyword_at(&statement_tokens("create function p()")), None);
        assert_eq!(
            keyword_at(&statement_tokens("create \"procedure\" p")),
            None
        );
    }

    fn def(modes: &[u8], defaults: &[&str]) -> FunctionDef {
        FunctionDef {
            name: "p".into(),
            args: (0..modes.len())
                .map(|i| (format!("a{i}"), 23, -1))
                .collect(),
            modes: modes.to_vec(),
            defaults: defaults.iter().map(|d| d.to_string()).collect(),
            procedure: true,
            ..Default::default()
        }
    }

    fn call_of(sql: &str) -> Function {
        let dialect = sqlparser::dialect::PostgreSqlDialect {};
        match sqlparser::parser::Parser::parse_sql(&dialect, sql)
            .unwrap()
            .remove(0)
        {
            Statement::Call(f) => f,
            other => panic!("{other:?}"),
        }
    }

    fn fit(def: &FunctionDef, sql: &str) -> Option<Vec<String>> {
        let f = call_of(sql);
        let written = written(&f, &mut |_| unreachable!("only literals")).unwrap();
        sources(def, &written).map(|s| {
            s.iter()
                .map(|s| match s {
                    Source::Written(i) => format!("w{i}"),
                    Source::Default(i) => format!("d{i}"),
                    Source::Variadic(list) => format!("v{list:?}"),
                })
                .collect()
        })
    }

    // Proves arguments are placed by position, then by name, defaults
    // fill the last inputs, and a call that leaves one out, names one
    // twice or gives one of a type without an implicit cast fits not.
    #[test]
    fn arguments_are_placed_as_postgresql_places_them() {
        let p = def(b"iii", &["100"]);
        assert_eq!(fit(&p, "call p(1, 2, 3)").unwrap(), ["w0", "w1", "w2"]);
        assert_eq!(fit(&p, "call p(1, 2)").unwrap(), ["w0", "w1", "d0"]);
        assert_eq!(fit(&p, "call p(1, a1 => 2)").unwrap(), ["w0", "w1", "d0"]);
        assert_eq!(
            fit(&p, "call p(a1 => 2, a0 => 1)").unwrap(),
            ["w1", "w0", "d0"]
        );
        assert_eq!(fit(&p, "call p(1)"), None);
        assert_eq!(fit(&p, "call p(1, a0 => 2)"), None);
        assert_eq!(fit(&p, "call p(1, 2, 3, 4)"), None);
        assert_eq!(fit(&p, "call p(1.5, 2)"), None);
        // OUT arguments are written too; defaults skip them.
        let q = def(b"oii", &["7"]);
        assert_eq!(fit(&q, "call p(null, 1)").unwrap(), ["w0", "w1", "d0"]);
        assert_eq!(fit(&q, "call p(1)"), None);
        // A VARIADIC argument takes the positional ones from its place on.
        let mut v = def(b"ov", &[]);
        v.args[1].1 = 1007;
        assert_eq!(
            fit(&v, "call p(null, 1, 2, 3)").unwrap(),
            ["w0", "v[1, 2, 3]"]
        );
        assert_eq!(fit(&v, "call p(null, 1, 1.5)"), None);
    }
}
