//! Domains: `CREATE DOMAIN`, `ALTER DOMAIN`, `DROP DOMAIN` (sqlparser
//! reads no NOT NULL in a domain and no ALTER DOMAIN: both are read here
//! with its parser's pieces), and the one owner of a domain's rules on a
//! value ([`Bound::enforce`]: NOT NULL, then each CHECK in name order),
//! which a table's writes (`constraints.rs`) and a cast to the domain
//! (`Scalar::Domain`) call. folio-catalog `domains.rs` keeps them;
//! README "Domains".

use crate::context::Ctx;
use crate::drop_column::drop_columns_of_type;
use crate::error::SqlError;
use crate::names;
use crate::output::{Notice, Output};
use crate::parse;
use crate::scalar::{self, Env, Scalar};
use crate::types;
use folio_catalog::{Dependent, DomainCheck, DomainType};
use folio_row::{SqlType, Value};
use folio_txn::Transaction;
use sqlparser::ast::{DataType, Expr, ObjectName};
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::parser::Parser;
use sqlparser::tokenizer::{Token, TokenWithSpan};
use std::sync::Arc;

/// `CREATE DOMAIN name [AS] type [COLLATE c] [DEFAULT e] [constraint ...]`.
#[derive(Debug, Clone, PartialEq)]
pub struct Create {
    pub name: ObjectName,
    pub data_type: DataType,
    pub collate: Option<ObjectName>,
    pub default: Option<Expr>,
    pub constraints: Vec<(Option<String>, Constraint)>,
}

/// One constraint of a domain as written.
#[derive(Debug, Clone, PartialEq)]
pub enum Constraint {
    NotNull,
    Null,
    Check(Box<Expr>),
}

/// `ALTER DOMAIN name action`.
#[derive(Debug, Clone, PartialEq)]
pub struct Alter {
    pub name: ObjectName,
    pub action: AlterAction,
}

#[derive(Debug, Clone, PartialEq)]
pub enum AlterAction {
    /// `ADD [CONSTRAINT c] CHECK (e) [NOT VALID]` (`valid`: without NOT
    /// VALID).
    AddCheck {
        name: Option<String>,
        check: Expr,
        valid: bool,
    },
    /// `VALIDATE CONSTRAINT c`.
    Validate(String),
    /// `RENAME TO name`.
    Rename(String),
    /// `RENAME CONSTRAINT c TO name`.
    RenameConstraint {
        from: String,
        to: String,
    },
    /// `DROP CONSTRAINT [IF EXISTS] c [RESTRICT | CASCADE]`.
    DropConstraint {
        name: String,
        if_exists: bool,
    },
    SetDefault(Expr),
    DropDefault,
    SetNotNull,
    DropNotNull,
}

fn parser(tokens: &[TokenWithSpan]) -> Parser<'static> {
    static DIALECT: PostgreSqlDialect = PostgreSqlDialect {};
    Parser::new(&DIALECT).with_tokens_with_locations(tokens.to_vec())
}

fn syntax(e: sqlparser::parser::ParserError) -> SqlError {
    SqlError::syntax(e.to_string())
}

/// An expression that stops before `NOT NULL`, `NULL`, `CHECK`,
/// `CONSTRAINT`, `DEFAULT` or `COLLATE` (what may follow a DEFAULT).
fn default_expr(p: &mut Parser<'_>) -> Result<Expr, SqlError> {
    // Above NOT's precedence: `DEFAULT 1 NOT NULL` is 1, then NOT NULL.
    use sqlparser::dialect::{Dialect, Precedence};
    let precedence = PostgreSqlDialect {}.prec_value(Precedence::Between);
    p.parse_subexpr(precedence).map_err(syntax)
}

fn parenthesized(p: &mut Parser<'_>) -> Result<Expr, SqlError> {
    p.expect_token(&Token::LParen).map_err(syntax)?;
    let e = p.parse_expr().map_err(syntax)?;
    p.expect_token(&Token::RParen).map_err(syntax)?;
    Ok(e)
}

fn at_end(p: &mut Parser<'_>) -> Result<(), SqlError> {
    match p.peek_token().token {
        Token::EOF | Token::SemiColon => Ok(()),
        other => Err(SqlError::syntax(format!(
            "syntax error at or near \"{other}\""
        ))),
    }
}

/// Reads `CREATE DOMAIN ...` from the tokens after `CREATE DOMAIN`.
pub fn parse_create(tokens: &[TokenWithSpan]) -> Result<Create, SqlError> {
    let mut p = parser(tokens);
    let name = p.parse_object_name(false).map_err(syntax)?;
    let _ = p.parse_keyword(Keyword::AS);
    let data_type = p.parse_data_type().map_err(syntax)?;
    let mut create = Create {
        name,
        data_type,
        collate: None,
        default: None,
        constraints: Vec::new(),
    };
    loop {
        if p.parse_keyword(Keyword::COLLATE) {
            create.collate = Some(p.parse_object_name(false).map_err(syntax)?);
        } else if p.parse_keyword(Keyword::DEFAULT) {
            if create.default.is_some() {
                return Err(SqlError::syntax("multiple default expressions"));
            }
            create.default = Some(default_expr(&mut p)?);
        } else if let Some(c) = constraint(&mut p)? {
            create.constraints.push(c);
        } else {
            at_end(&mut p)?;
            return Ok(create);
        }
    }
}

/// `[CONSTRAINT name] {NOT NULL | NULL | CHECK (e)}`, if one is next.
fn constraint(p: &mut Parser<'_>) -> Result<Option<(Option<String>, Constraint)>, SqlError> {
    let name = match p.parse_keyword(Keyword::CONSTRAINT) {
        true => Some(names::ident(&p.parse_identifier().map_err(syntax)?)),
        false => None,
    };
    let c = if p.parse_keywords(&[Keyword::NOT, Keyword::NULL]) {
        Constraint::NotNull
    } else if p.parse_keyword(Keyword::NULL) {
        Constraint::Null
    } else if p.parse_keyword(Keyword::CHECK) {
        Constraint::Check(Box::new(parenthesized(p)?))
    } else if name.is_some() {
        return Err(SqlError::syntax(format!(
            "syntax error at or near \"{}\"",
            p.peek_token().token
        )));
    } else {
        return Ok(None);
    };
    Ok(Some((name, c)))
}

/// Reads `ALTER DOMAIN ...` from the tokens after `ALTER DOMAIN`.
pub fn parse_alter(tokens: &[TokenWithSpan]) -> Result<Alter, SqlError> {
    let mut p = parser(tokens);
    let name = p.parse_object_name(false).map_err(syntax)?;
    let action = if p.parse_keyword(Keyword::ADD) {
        match constraint(&mut p)? {
            Some((name, Constraint::Check(e))) => AlterAction::AddCheck {
                name,
                check: *e,
                valid: !p.parse_keywords(&[Keyword::NOT, Keyword::VALID]),
            },
            Some((_, Constraint::NotNull)) => AlterAction::SetNotNull,
            _ => {
                return Err(SqlError::syntax(format!(
                    "syntax error at or near \"{}\"",
                    p.peek_token().token
                )));
            }
        }
    } else if p.parse_keywords(&[Keyword::DROP, Keyword::CONSTRAINT]) {
        let if_exists = p.parse_keywords(&[Keyword::IF, Keyword::EXISTS]);
        let name = names::ident(&p.parse_identifier().map_err(syntax)?);
        let _ = p.parse_one_of_keywords(&[Keyword::RESTRICT, Keyword::CASCADE]);
        AlterAction::DropConstraint { name, if_exists }
    } else if p.parse_keywords(&[Keyword::VALIDATE, Keyword::CONSTRAINT]) {
        AlterAction::Validate(names::ident(&p.parse_identifier().map_err(syntax)?))
    } else if p.parse_keywords(&[Keyword::RENAME, Keyword::CONSTRAINT]) {
        let from = names::ident(&p.parse_identifier().map_err(syntax)?);
        p.expect_keyword(Keyword::TO).map_err(syntax)?;
        let to = names::ident(&p.parse_identifier().map_err(syntax)?);
        AlterAction::RenameConstraint { from, to }
    } else if p.parse_keywords(&[Keyword::RENAME, Keyword::TO]) {
        AlterAction::Rename(names::ident(&p.parse_identifier().map_err(syntax)?))
    } else if p.parse_keywords(&[Keyword::SET, Keyword::DEFAULT]) {
        AlterAction::SetDefault(p.parse_expr().map_err(syntax)?)
    } else if p.parse_keywords(&[Keyword::DROP, Keyword::DEFAULT]) {
        AlterAction::DropDefault
    } else if p.parse_keywords(&[Keyword::SET, Keyword::NOT, Keyword::NULL]) {
        AlterAction::SetNotNull
    } else if p.parse_keywords(&[Keyword::DROP, Keyword::NOT, Keyword::NULL]) {
        AlterAction::DropNotNull
    } else {
        return Err(SqlError::unsupported(format!(
            "ALTER DOMAIN ... {}",
            p.peek_token().token
        )));
    };
    at_end(&mut p)?;
    Ok(Alter { name, action })
}

/// The domain named by a type name, if the statement's transaction sees
/// one (`user_types.rs`).
pub fn of_type(ty: &DataType) -> Option<Arc<DomainType>> {
    let DataType::Custom(name, modifiers) = ty else {
        return None;
    };
    if !modifiers.is_empty() {
        return None;
    }
    match names::parts(name).as_deref() {
        Some([schema, name]) if schema == "public" => crate::user_types::domain_named(name),
        Some([name]) => crate::user_types::domain_named(name),
        _ => None,
    }
}

/// The domain whose array type `ty` names (`posint[]`, `posint[][]`:
/// folio's arrays of any dimensions are one type), if it has one whose
/// elements are checked: a domain made with an array type, over a type
/// that is no array (an array of a domain over an array keeps its base
/// type, unchecked).
pub fn of_array_type(ty: &DataType) -> Option<Arc<DomainType>> {
    let mut element = ty;
    while let DataType::Array(
        sqlparser::ast::ArrayElemTypeDef::SquareBracket(inner, _)
        | sqlparser::ast::ArrayElemTypeDef::AngleBracket(inner),
    ) = element
    {
        element = inner;
    }
    if std::ptr::eq(element, ty) {
        return None;
    }
    of_type(element).filter(has_checked_array)
}

/// Whether a column or value of `def`'s array type has its elements
/// checked ([`of_array_type`]).
fn has_checked_array(def: &Arc<DomainType>) -> bool {
    def.array_oid != 0 && base_type(def).is_ok_and(|t| t.element().is_none())
}

/// The domain of array type oid `oid`, if it is one with checked
/// elements.
fn of_array_oid(oid: u32) -> Option<Arc<DomainType>> {
    (crate::user_types::domains().iter())
        .find(|d| d.array_oid == oid && oid != 0)
        .filter(|d| has_checked_array(d))
        .cloned()
}

/// The array type of `def`'s base type: what a value of `def[]` is.
pub fn array_type(def: &DomainType) -> Option<SqlType> {
    base_type(def).ok()?.array_keeping_modifier()
}

/// The type a value of type `oid` is, when `oid` is a domain or the
/// array type of one: its base type, or the array of that; `None` for
/// any other oid.
pub fn value_type_of(oid: u32) -> Option<SqlType> {
    if let Some(d) = crate::user_types::domain_of_oid(oid) {
        return base_type(&d).ok();
    }
    of_array_oid(oid).and_then(|d| array_type(&d))
}

/// `oid`, or the oid of the type a value of it is when it names a domain
/// or a domain's array type ([`value_type_of`]).
pub fn base_oid(oid: u32) -> u32 {
    match crate::user_types::domain_of_oid(oid) {
        Some(d) => d.base_oid,
        None => of_array_oid(oid)
            .and_then(|d| array_type(&d))
            .map_or(oid, |t| t.oid()),
    }
}

/// The rules of the domain of oid `oid` (a routine's parameter or
/// result, a PL/pgSQL variable), or of each element of its array type,
/// bound; `None` when `oid` is neither.
pub fn rules_of_oid(oid: u32) -> Result<Option<Arc<Bound>>, SqlError> {
    let domains = crate::user_types::domains();
    if let Some(def) = crate::user_types::domain_of_oid(oid) {
        return Bound::bind(&def, base_type(&def)?, &domains).map(Some);
    }
    match of_array_oid(oid) {
        Some(def) => Bound::bind_elements(&def, base_type(&def)?, &domains).map(Some),
        None => Ok(None),
    }
}

/// The rules of the domain type `ty` names, or of each element of the
/// domain's array type it names, bound; `None` when it names neither.
pub fn rules_of_type(ty: &DataType) -> Result<Option<Arc<Bound>>, SqlError> {
    let domains = crate::user_types::domains();
    if let Some(def) = of_type(ty) {
        return Bound::bind(&def, base_type(&def)?, &domains).map(Some);
    }
    match of_array_type(ty) {
        Some(def) => Bound::bind_elements(&def, base_type(&def)?, &domains).map(Some),
        None => Ok(None),
    }
}

/// The type oid of a column declared `ty` (bound as `bound`): the
/// domain's if `ty` names one (PostgreSQL's `atttypid`), else the type's.
pub fn type_oid(ty: &DataType, bound: SqlType) -> u32 {
    if let Some(d) = of_type(ty) {
        return d.oid;
    }
    of_array_type(ty).map_or(bound.oid(), |d| d.array_oid)
}

/// The base type of `def`: a built-in type, or an enum or composite type
/// (or an array of one) the statement sees; an array's elements keep
/// the domain's modifier ([`with_element_typmod`]).
pub fn base_type(def: &DomainType) -> Result<SqlType, SqlError> {
    let ty = SqlType::from_oid(def.base_oid, def.base_typmod)
        .or_else(|| crate::user_types::of_oid(def.base_oid, def.base_typmod))
        .ok_or_else(|| {
            SqlError::new(
                "XX000",
                format!("domain {} has an unknown base type", def.name),
            )
        })?;
    Ok(with_element_typmod(ty, def.base_typmod))
}

/// Array type `ty` with elements of modifier `typmod` (`varchar(4)[]`:
/// PostgreSQL's `typtypmod` of a domain over an array is its elements'),
/// else `ty`. Only a domain's base type has one: folio's array types
/// otherwise keep no element modifier (`types::stored_column_type`).
pub fn with_element_typmod(ty: SqlType, typmod: i32) -> SqlType {
    use std::sync::Mutex;
    /// The modified element types made so far, each leaked once: a few,
    /// one per modifier a domain over an array declares.
    static INTERNED: Mutex<Vec<&'static SqlType>> = Mutex::new(Vec::new());
    let Some(element) = ty.element().filter(|_| typmod != -1) else {
        return ty;
    };
    let Some(modified) = SqlType::from_oid(element.oid(), typmod).filter(|e| *e != element) else {
        return ty;
    };
    let mut interned = INTERNED.lock().unwrap_or_else(|e| e.into_inner());
    let known = match interned.iter().find(|e| ***e == modified) {
        Some(known) => *known,
        None => {
            let leaked: &'static SqlType = Box::leak(Box::new(modified));
            interned.push(leaked);
            leaked
        }
    };
    SqlType::Array(known)
}

/// The modifier of the type `ty` declares, an array's its elements'
/// (`varchar(4)[2][3]`: that of `varchar(4)`).
fn declared_typmod(ty: &DataType) -> Result<i32, SqlError> {
    use sqlparser::ast::ArrayElemTypeDef;
    let mut ty = ty;
    // Each step takes off one `[]`: bounded by the type's text.
    while let DataType::Array(
        ArrayElemTypeDef::SquareBracket(element, _) | ArrayElemTypeDef::AngleBracket(element),
    ) = ty
    {
        ty = element;
    }
    Ok(types::column_type(ty)?.typmod())
}

/// The domain expression `e`'s value is of, by name, where the binder
/// knows one (`pg_typeof` reports it; its type is otherwise the base
/// type's): a cast to it, a column of it, a COALESCE of values all of it
/// (PostgreSQL's common type of inputs of one domain is the domain).
pub fn value_domain(e: &Scalar, columns: &(impl scalar::Columns + ?Sized)) -> Option<String> {
    match e {
        Scalar::Domain(_, d) => Some(d.type_name()),
        Scalar::Column(c) => columns.domain_at(*c),
        Scalar::Func(crate::functions::Func::Coalesce, args) => {
            let first = value_domain(args.first()?, columns)?;
            (args[1..].iter())
                .all(|a| value_domain(a, columns).as_deref() == Some(&first))
                .then_some(first)
        }
        _ => None,
    }
}

/// The name of the domain (or, `d[]`, the domain's array type) a column
/// of type oid `type_oid` of table `def` is of, if any.
pub fn column_domain(def: &folio_catalog::TableDef, type_oid: u32) -> Option<String> {
    def.domains.iter().find_map(|d| match type_oid {
        _ if type_oid == d.oid => Some(d.name.clone()),
        _ if type_oid == d.array_oid && type_oid != 0 => Some(format!("{}[]", d.name)),
        _ => None,
    })
}

/// A domain's rules, bound: what a value of it must meet, its own and
/// those of each domain it is made over.
#[derive(Debug, PartialEq)]
pub struct Bound {
    pub name: String,
    /// The base type, when a value of it is first converted to it: an
    /// array whose elements have a modifier ([`with_element_typmod`]; a
    /// table keeps no such type, so its writes convert here).
    convert_to: Option<SqlType>,
    /// NOT NULL at any level.
    not_null: bool,
    /// Each CHECK (name, expression over the one column `value`): the
    /// outermost parent's first, each level's in name order
    /// (PostgreSQL's order: it reports the first failing one by name).
    checks: Vec<(String, Scalar)>,
    /// The rules judge each element of an array (a value of the
    /// domain's array type, `d[]`), not the value.
    elements: bool,
}

/// `def` and the domains it is made over, `def` first, as found among
/// `domains` (a parent that is not there is an internal error).
fn levels<'a>(
    def: &'a DomainType,
    domains: &'a [Arc<DomainType>],
) -> Result<Vec<&'a DomainType>, SqlError> {
    let mut out = vec![def];
    // A chain is no longer than the domains: bounded.
    for _ in 0..=domains.len() {
        let last = out[out.len() - 1];
        if last.parent == 0 {
            return Ok(out);
        }
        let parent = (domains.iter())
            .find(|d| d.oid == last.parent)
            .ok_or_else(|| {
                SqlError::new(
                    "XX000",
                    format!("cache lookup failed for type {}", last.parent),
                )
            })?;
        out.push(parent);
    }
    Err(SqlError::new(
        "XX000",
        format!("domain {} is made over itself", def.name),
    ))
}

/// `expr` (a domain's CHECK) bound over the one column `value` of type
/// `base`.
fn bind_check(expr: &Expr, base: SqlType) -> Result<Scalar, SqlError> {
    let columns = [("value".to_string(), base)];
    scalar::bind(expr, &columns[..])
}

impl Bound {
    /// `def`'s rules and its parents' (found among `domains`), over
    /// `def`'s base type `base` (`base_type`, or a table's column type:
    /// with the element modifier put back here).
    pub fn bind(
        def: &DomainType,
        base: SqlType,
        domains: &[Arc<DomainType>],
    ) -> Result<Arc<Bound>, SqlError> {
        let base = with_element_typmod(base, def.base_typmod);
        let mut checks = Vec::new();
        let mut not_null = false;
        for level in levels(def, domains)?.into_iter().rev() {
            let mut own = (level.checks.iter())
                .map(|c| {
                    Ok((
                        c.name.clone(),
                        bind_check(&parse::expression(&c.expr)?, base)?,
                    ))
                })
                .collect::<Result<Vec<_>, SqlError>>()?;
            own.sort_by(|a, b| a.0.cmp(&b.0));
            checks.extend(own);
            not_null |= level.not_null;
        }
        Ok(Arc::new(Bound {
            name: def.name.clone(),
            convert_to: (base.element().is_some() && def.base_typmod != -1).then_some(base),
            not_null,
            checks,
            elements: false,
        }))
    }

    /// The name of the type the rules are of: the domain's, or its array
    /// type's (`d[]`).
    pub fn type_name(&self) -> String {
        match self.elements {
            true => format!("{}[]", self.name),
            false => self.name.clone(),
        }
    }

    /// [`Bound::bind`]'s rules judging each element of a value of
    /// `def`'s array type.
    pub fn bind_elements(
        def: &DomainType,
        base: SqlType,
        domains: &[Arc<DomainType>],
    ) -> Result<Arc<Bound>, SqlError> {
        let rules = Bound::bind(def, base, domains)?;
        Ok(Arc::new(Bound {
            name: rules.name.clone(),
            convert_to: None,
            not_null: rules.not_null,
            checks: rules.checks.clone(),
            elements: true,
        }))
    }

    /// `value` stored into a column of the domain: converted to the
    /// base type's element modifier if it has one (22001 for a text too
    /// long, as an assignment), then judged ([`Bound::enforce`]).
    pub fn fit(&self, value: Value, env: &Env<'_>) -> Result<Value, SqlError> {
        let value = match self.convert_to {
            Some(ty) => types::assign(value, ty)?,
            None => value,
        };
        self.enforce(&value, env)?;
        Ok(value)
    }

    /// 23502 for NULL under NOT NULL, 23514 naming the first CHECK
    /// `value` fails (a NULL result passes, as a table's CHECK); for the
    /// rules of an array's elements, of each element (a NULL array has
    /// none).
    pub fn enforce(&self, value: &Value, env: &Env<'_>) -> Result<(), SqlError> {
        if !self.elements {
            return self.judge(value, env);
        }
        match value {
            Value::Array(array) => (array.items().iter()).try_for_each(|v| self.judge(v, env)),
            _ => Ok(()),
        }
    }

    /// [`Bound::enforce`] of one value of the domain.
    fn judge(&self, value: &Value, env: &Env<'_>) -> Result<(), SqlError> {
        if self.not_null && matches!(value, Value::Null) {
            return Err(SqlError::new(
                "23502",
                format!("domain {} does not allow null values", self.name),
            ));
        }
        let row = std::slice::from_ref(value);
        for (name, check) in &self.checks {
            if check.eval(row, env)? == Value::Bool(false) {
                return Err(SqlError::new(
                    "23514",
                    format!(
                        "value for domain {} violates check constraint \"{name}\"",
                        self.name
                    ),
                ));
            }
        }
        Ok(())
    }
}

/// The name PostgreSQL gives a domain's unnamed CHECK: `<domain>_check`,
/// then `<domain>_check1`, ... past the names `taken`.
fn check_name(domain: &str, taken: &[DomainCheck]) -> String {
    let base = format!("{domain}_check");
    (0..)
        .map(|n| match n {
            0 => base.clone(),
            n => format!("{base}{n}"),
        })
        .find(|n| !taken.iter().any(|c| &c.name == n))
        .expect("some number is free")
}

/// A default's text, checked to bind as a constant (it may not read a
/// column) of a type that meets `base`.
fn default_text(expr: &Expr, base: SqlType) -> Result<String, SqlError> {
    let none: &[(String, SqlType)] = &[];
    let bound = scalar::bind(expr, none)?;
    let from = bound.ty_in(none);
    if from.oid() != base.oid()
        && !types::assignment_cast(from, base)
        && !matches!(bound, Scalar::Const(Value::Text(_) | Value::Null))
    {
        return Err(SqlError::new(
            "42804",
            format!(
                "column \"{}\" is of type {} but default expression is of type {}",
                "value",
                base.name(),
                from.name()
            ),
        ));
    }
    Ok(expr.to_string())
}

/// `CREATE DOMAIN`.
pub fn create(cx: &Ctx<'_>, txn: &mut Transaction, create: &Create) -> Result<Output, SqlError> {
    cx.relations.ddl();
    let name = names::relation(&create.name)?;
    // Over a domain: its base type, and its default unless one is given
    // (PostgreSQL copies the parent's `typdefault`).
    let parent = of_type(&create.data_type);
    // The base type: an array's keeps its elements' modifier (PostgreSQL
    // ignores the sizes: `int4[1]` is `int4[]`).
    let (base, base_typmod) = match &parent {
        Some(p) => (base_type(p)?, p.base_typmod),
        None => {
            let ty = types::storable(types::column_type(&create.data_type)?)?;
            let typmod = declared_typmod(&create.data_type)?;
            (with_element_typmod(ty, typmod), typmod)
        }
    };
    let mut def = DomainType {
        oid: 0,
        name: name.clone(),
        base_oid: base.oid(),
        base_typmod,
        parent: parent.as_ref().map_or(0, |p| p.oid),
        not_null: false,
        default: match &create.default {
            Some(e) => Some(default_text(e, base)?),
            None => parent.as_ref().and_then(|p| p.default.clone()),
        },
        checks: Vec::new(),
        // (The catalog gives it an array type.)
        array_oid: 0,
        // Its COLLATE clause's, else its parent's (PostgreSQL's).
        collation: match &create.collate {
            Some(c) => Some(crate::collations::for_type(c, base)?),
            None => parent.as_ref().and_then(|p| p.collation),
        },
    };
    let mut null_said = None;
    for (cname, c) in &create.constraints {
        match c {
            Constraint::NotNull | Constraint::Null => {
                let not_null = *c == Constraint::NotNull;
                if null_said.is_some_and(|said| said != not_null) {
                    return Err(SqlError::syntax("conflicting NULL/NOT NULL constraints"));
                }
                null_said = Some(not_null);
                def.not_null = not_null;
            }
            Constraint::Check(e) => {
                bind_check(e, base)?;
                let cname = match cname {
                    Some(n) => n.clone(),
                    None => check_name(&name, &def.checks),
                };
                def.checks.push(DomainCheck {
                    oid: 0,
                    name: cname,
                    expr: e.to_string(),
                    validated: true,
                });
            }
        }
    }
    cx.db.catalog().create_domain(txn, &def)?;
    Ok(Output::command("CREATE DOMAIN"))
}

/// `DROP DOMAIN [IF EXISTS] name [CASCADE]`: under CASCADE the columns
/// of the domain go first, with PostgreSQL's NOTICE.
pub fn drop(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    if_exists: bool,
    name: &ObjectName,
    cascade: bool,
) -> Result<Output, SqlError> {
    cx.relations.ddl();
    let catalog = cx.db.catalog();
    let name = names::relation(name)?;
    let Some(def) = catalog.domain_type(txn, &name)? else {
        if if_exists {
            notices.push(Notice::info(format!(
                "type \"{name}\" does not exist, skipping"
            )));
            return Ok(Output::command("DROP DOMAIN"));
        }
        return Err(SqlError::new(
            "42704",
            format!("type \"{name}\" does not exist"),
        ));
    };
    if cascade {
        let dependents = catalog.domain_dependents(txn, def.oid, &name)?;
        let objects: Vec<String> = dependents.iter().map(|(d, _)| d.describe()).collect();
        notices.extend(Notice::cascaded(&objects));
        // Columns first: each domain's and its array type's.
        let mut types = vec![def.oid, def.array_oid];
        for (d, _) in &dependents {
            if let Dependent::Domain(n, _) = d
                && let Some(inner) = catalog.domain_type(txn, n)?
            {
                types.extend([inner.oid, inner.array_oid]);
            }
        }
        for oid in types.into_iter().filter(|o| *o != 0) {
            drop_columns_of_type(cx, txn, &mut Vec::new(), oid)?;
        }
        // The routines of them, then the domains made over this one,
        // innermost first (each is then depended on by nothing).
        for (d, _) in &dependents {
            if let Dependent::Routine {
                name, signature, ..
            } = d
            {
                catalog.drop_function(txn, name, signature)?;
            }
        }
        for (d, _) in dependents.iter().rev() {
            if let Dependent::Domain(n, _) = d {
                catalog.drop_domain(txn, n)?;
            }
        }
    }
    catalog.drop_domain(txn, &name)?;
    Ok(Output::command("DROP DOMAIN"))
}

/// `ALTER DOMAIN name ...`: a new CHECK or NOT NULL is checked against
/// every stored value of the domain's columns first.
pub fn alter(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    notices: &mut Vec<Notice>,
    alter: &Alter,
) -> Result<Output, SqlError> {
    cx.relations.ddl();
    let catalog = cx.db.catalog();
    let name = names::relation(&alter.name)?;
    if catalog.domain_type(txn, &name)?.is_none() {
        return Err(SqlError::new(
            "42704",
            format!("type \"{name}\" does not exist"),
        ));
    }
    let old = catalog.lock_domain(txn, &name)?;
    let base = base_type(&old)?;
    let mut new = (*old).clone();
    match &alter.action {
        AlterAction::AddCheck {
            name: cname,
            check: e,
            valid,
        } => {
            let check = bind_check(e, base)?;
            let cname = match cname {
                Some(n) if new.checks.iter().any(|c| &c.name == n) => {
                    return Err(SqlError::new(
                        "42710",
                        format!("constraint \"{n}\" for domain \"{name}\" already exists"),
                    ));
                }
                Some(n) => n.clone(),
                None => check_name(&name, &new.checks),
            };
            if *valid {
                let probe = Bound {
                    name: name.clone(),
                    convert_to: None,
                    elements: false,
                    not_null: false,
                    checks: vec![(cname.clone(), check)],
                };
                validate(cx, txn, &old, &probe)?;
            }
            new.checks.push(DomainCheck {
                oid: 0,
                name: cname,
                expr: e.to_string(),
                validated: *valid,
            });
        }
        AlterAction::Validate(cname) => {
            let Some(c) = new.checks.iter_mut().find(|c| &c.name == cname) else {
                return Err(SqlError::new(
                    "42704",
                    format!("constraint \"{cname}\" of domain \"{name}\" does not exist"),
                ));
            };
            if c.validated {
                return Ok(Output::command("ALTER DOMAIN"));
            }
            let probe = Bound {
                name: name.clone(),
                convert_to: None,
                elements: false,
                not_null: false,
                checks: vec![(
                    cname.clone(),
                    bind_check(&parse::expression(&c.expr)?, base)?,
                )],
            };
            validate(cx, txn, &old, &probe)?;
            c.validated = true;
        }
        AlterAction::Rename(to) => {
            catalog.rename_domain(txn, &name, to)?;
            return Ok(Output::command("ALTER DOMAIN"));
        }
        AlterAction::RenameConstraint { from, to } => {
            if new.checks.iter().any(|c| &c.name == to) {
                return Err(SqlError::new(
                    "42710",
                    format!("constraint \"{to}\" for domain {name} already exists"),
                ));
            }
            let Some(c) = new.checks.iter_mut().find(|c| &c.name == from) else {
                return Err(SqlError::new(
                    "42704",
                    format!("constraint \"{from}\" for domain {name} does not exist"),
                ));
            };
            c.name = to.clone();
        }
        AlterAction::DropConstraint {
            name: cname,
            if_exists,
        } => {
            let before = new.checks.len();
            new.checks.retain(|c| &c.name != cname);
            if new.checks.len() == before {
                if *if_exists {
                    notices.push(Notice::info(format!(
                        "constraint \"{cname}\" of domain \"{name}\" does not exist, skipping"
                    )));
                    return Ok(Output::command("ALTER DOMAIN"));
                }
                return Err(SqlError::new(
                    "42704",
                    format!("constraint \"{cname}\" of domain \"{name}\" does not exist"),
                ));
            }
        }
        AlterAction::SetDefault(e) => new.default = Some(default_text(e, base)?),
        AlterAction::DropDefault => new.default = None,
        AlterAction::SetNotNull => {
            if !old.not_null {
                let probe = Bound {
                    name: name.clone(),
                    convert_to: None,
                    elements: false,
                    not_null: true,
                    checks: Vec::new(),
                };
                validate(cx, txn, &old, &probe)?;
            }
            new.not_null = true;
        }
        AlterAction::DropNotNull => new.not_null = false,
    }
    catalog.replace_domain(txn, &new)?;
    Ok(Output::command("ALTER DOMAIN"))
}

/// Every stored value of a column of domain `def` meets `probe` (with
/// the newest committed rows): PostgreSQL's 23502 / 23514 naming the
/// column otherwise.
fn validate(
    cx: &Ctx<'_>,
    txn: &mut Transaction,
    def: &DomainType,
    probe: &Bound,
) -> Result<(), SqlError> {
    let env = Env::at(cx.now());
    let catalog = cx.db.catalog();
    if let Some((table, column)) = catalog.columns_holding(txn, def.oid)?.first() {
        return Err(SqlError::new(
            "0A000",
            format!(
                "cannot alter type \"{}\" because column \"{table}.{column}\" uses it",
                def.name
            ),
        ));
    }
    // The domain's columns and those of each domain made over it.
    let mut columns = catalog.columns_of_type(txn, def.oid)?;
    for (d, _) in catalog.domain_dependents(txn, def.oid, &def.name)? {
        if let Dependent::Domain(_, oid) = d {
            columns.extend(catalog.columns_of_type(txn, oid)?);
        }
    }
    for (table, column) in columns {
        let relation = crate::access::relation(cx, txn, &table)?;
        let Some(position) = relation.def.column(&column) else {
            continue;
        };
        let rows = txn.with_latest_snapshot(|txn| relation.scan(txn))?;
        for (_, row) in rows {
            if let Err(e) = probe.enforce(&row[position], &env) {
                let message = match e.code {
                    "23502" => {
                        format!("column \"{column}\" of table \"{table}\" contains null values")
                    }
                    _ => format!(
                        "column \"{column}\" of table \"{table}\" contains values that violate the new constraint"
                    ),
                };
                return Err(SqlError::new(e.code, message));
            }
        }
    }
    Ok(())
}
