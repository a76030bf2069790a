//! How a call's written arguments fill a user-defined function's
//! parameters (PostgreSQL's `FuncnameGetCandidates` for SQL and PL/pgSQL
//! functions): by place, by name (`a => 1`, `a := 1`), an input
//! parameter's default when the call leaves it out, and a VARIADIC
//! parameter's elements gathered from the positional arguments at and
//! after its place (`VARIADIC arr` as the last argument gives the array
//! itself, `variadic.rs`'s marker). The one owner of whether a call fits
//! a definition ([`fit`]), of which definition of a name a call means
//! ([`choose`]: 42725 when several fit alike) and of the argument list it
//! expands to ([`arguments`]).

use crate::error::SqlError;
use crate::names;
use crate::polymorphic::Actual;
use folio_catalog::FunctionDef;
use sqlparser::ast::{Expr, FunctionArg, FunctionArgExpr, FunctionArgOperator, FunctionArguments};

/// A call's arguments as written.
pub struct Listed<'a> {
    /// Each argument's name (`name => value`) and expression.
    pub args: Vec<(Option<String>, &'a Expr)>,
    /// The last one was written `VARIADIC arr`.
    pub variadic: bool,
}

/// The arguments of a call as written; 42601 for a positional argument
/// after a named one, or a name given twice (PostgreSQL's grammar
/// checks).
pub fn listed(args: &FunctionArguments) -> Result<Listed<'_>, SqlError> {
    let list = match args {
        FunctionArguments::None => {
            return Ok(Listed {
                args: Vec::new(),
                variadic: false,
            });
        }
        FunctionArguments::List(list) => list,
        FunctionArguments::Subquery(_) => {
            return Err(SqlError::syntax("syntax error at or near \"SELECT\""));
        }
    };
    let mut out: Vec<(Option<String>, &Expr)> = Vec::with_capacity(list.args.len());
    let mut variadic = false;
    for arg in &list.args {
        if crate::variadic::is_mark(arg) {
            variadic = true;
            continue;
        }
        let (name, expr) = match arg {
            FunctionArg::Unnamed(FunctionArgExpr::Expr(e)) => (None, e),
            FunctionArg::Named {
                name,
                arg: FunctionArgExpr::Expr(e),
                operator: FunctionArgOperator::RightArrow | FunctionArgOperator::Assignment,
            } => (Some(names::ident(name)), e),
            FunctionArg::ExprNamed {
                name: Expr::Identifier(name),
                arg: FunctionArgExpr::Expr(e),
                operator: FunctionArgOperator::RightArrow | FunctionArgOperator::Assignment,
            } => (Some(names::ident(name)), e),
            other => {
                return Err(SqlError::syntax(format!(
                    "syntax error at or near \"{other}\""
                )));
            }
        };
        if let Some(name) = &name
            && out.iter().any(|(n, _)| n.as_ref() == Some(name))
        {
            return Err(SqlError::syntax(format!(
                "argument name \"{name}\" used more than once"
            )));
        }
        if name.is_none() && out.iter().any(|(n, _)| n.is_some()) {
            return Err(SqlError::syntax(
                "positional argument cannot follow named argument",
            ));
        }
        out.push((name, expr));
    }
    Ok(Listed {
        args: out,
        variadic,
    })
}

/// Where a parameter's value comes from in a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Place {
    /// The written argument of this index.
    Written(usize),
    /// The definition's default of this index (`FunctionDef::defaults`).
    Default(usize),
    /// The VARIADIC parameter's array, of these written arguments.
    Gathered(Vec<usize>),
}

/// The VARIADIC parameter of `def`, if it has one.
fn variadic_at(def: &FunctionDef) -> Option<usize> {
    (0..def.args.len()).find(|k| def.mode(*k) == b'v')
}

/// Where each of `def`'s input parameters takes its value in a call of
/// the written arguments `names` (each one's name, if named; `spread`:
/// the last is `VARIADIC arr`), if the call fits: every parameter given
/// once, by place or name, or by its default.
pub fn fit(def: &FunctionDef, names: &[Option<String>], spread: bool) -> Option<Vec<Place>> {
    let n = def.args.len();
    let variadic = variadic_at(def);
    if spread && variadic.is_none() {
        return None;
    }
    // A named argument cannot follow the nameless elements a VARIADIC
    // parameter would gather: such a call fits only with `VARIADIC arr`
    // (PostgreSQL's).
    if variadic.is_some() && !spread && names.iter().any(Option::is_some) {
        return None;
    }
    let mut places: Vec<Option<Place>> = vec![None; n];
    for (i, name) in names.iter().enumerate() {
        if let Some(v) = variadic
            && !spread
            && name.is_none()
            && i >= v
        {
            match &mut places[v] {
                None => places[v] = Some(Place::Gathered(vec![i])),
                Some(Place::Gathered(list)) => list.push(i),
                Some(_) => return None,
            }
            continue;
        }
        let k = match name {
            None => i,
            Some(name) => def.args.iter().position(|a| a.0 == *name)?,
        };
        if k >= n || places[k].is_some() || !def.is_input(k) {
            return None;
        }
        places[k] = Some(Place::Written(i));
    }
    // `VARIADIC arr` is the VARIADIC parameter's own, by place.
    if spread && places[variadic?] != Some(Place::Written(names.len() - 1)) {
        return None;
    }
    for k in def.inputs() {
        if places[k].is_none() {
            places[k] = Some(Place::Default(def.default_index(k)?));
        }
    }
    places.into_iter().collect()
}

/// The declared type oid each written argument goes to under `places`
/// (a gathered one: the VARIADIC array's), in the call's order: two
/// definitions that fit a call alike are ambiguous.
fn effective(def: &FunctionDef, places: &[Place], count: usize) -> Vec<u32> {
    let mut out = vec![0; count];
    for (k, place) in places.iter().enumerate() {
        match place {
            Place::Written(i) => out[*i] = def.args[k].1,
            Place::Gathered(list) => list.iter().for_each(|i| out[*i] = def.args[k].1),
            Place::Default(_) => {}
        }
    }
    out
}

/// Which definition a call means among `candidates` (one name's), as
/// PostgreSQL chooses (`func_select_candidate`, in part): those the call
/// fits; of several, one that does not gather a VARIADIC array over one
/// that does, then, by the written arguments' types (`types`, asked for
/// only then, or for a call with named arguments; `None` when they
/// cannot be known here), those each typed
/// argument goes to implicitly, those with most exact matches, and those
/// taking an `unknown` literal as text. `Err(())`: several are left that
/// fit alike (PostgreSQL's 42725, which the caller words). `Ok(None)`:
/// none fits.
pub fn choose<'d>(
    candidates: impl Iterator<Item = &'d FunctionDef>,
    names: &[Option<String>],
    spread: bool,
    types: impl FnOnce() -> Option<Vec<Actual>>,
) -> Result<Option<&'d FunctionDef>, ()> {
    let fits: Vec<(&FunctionDef, Vec<u32>, bool)> = candidates
        .filter_map(|d| {
            let places = fit(d, names, spread)?;
            let gathers = places.iter().any(|p| matches!(p, Place::Gathered(_)));
            Some((d, effective(d, &places, names.len()), gathers))
        })
        .collect();
    let mut pool: Vec<&(&FunctionDef, Vec<u32>, bool)> = fits.iter().collect();
    if pool.iter().any(|(_, _, g)| !g) {
        pool.retain(|(_, _, g)| !g);
    }
    let alike = |pool: &[&(&FunctionDef, Vec<u32>, bool)]| {
        pool.iter().all(|(_, shape, _)| *shape == pool[0].1)
    };
    // (A named argument is checked against its parameter's type even
    // when one definition fits: another place's type tells nothing.)
    let named = names.iter().any(Option::is_some);
    if (named || (pool.len() > 1 && !alike(&pool)))
        && let Some(types) = types()
    {
        let goes = |ty: &Actual, to: u32| match ty {
            None => true,
            Some(t) => {
                crate::polymorphic::is_polymorphic(to) || crate::set_types::implicit_cast(*t, to)
            }
        };
        pool.retain(|(_, shape, _)| shape.iter().zip(&types).all(|(to, ty)| goes(ty, *to)));
        let exact = |shape: &[u32]| {
            (shape.iter().zip(&types))
                .filter(|(to, ty)| ty.is_some_and(|t| t.oid() == crate::domains::base_oid(**to)))
                .count()
        };
        let most = pool.iter().map(|(_, s, _)| exact(s)).max().unwrap_or(0);
        pool.retain(|(_, s, _)| exact(s) == most);
        let text = |shape: &[u32]| {
            (shape.iter().zip(&types))
                .filter(|(to, ty)| ty.is_none() && **to == folio_row::SqlType::Text.oid())
                .count()
        };
        let most = pool.iter().map(|(_, s, _)| text(s)).max().unwrap_or(0);
        pool.retain(|(_, s, _)| text(s) == most);
    }
    match pool.as_slice() {
        [] => Ok(None),
        [(one, _, _)] => Ok(Some(one)),
        _ if alike(&pool) => Err(()),
        // Folio keeps one definition per name and argument count, so
        // candidates of other types differ in how many they take: the
        // one that fills most parameters by the call's own.
        _ => Ok(pool
            .iter()
            .min_by_key(|(d, _, _)| d.args.len())
            .map(|(d, _, _)| *d)),
    }
}

/// The argument list a call of `def` expands to, one expression per
/// input parameter: a written argument, a default (its stored SQL text
/// parsed), or the VARIADIC parameter's `ARRAY[...]` of the arguments it
/// gathers.
pub fn arguments(
    def: &FunctionDef,
    listed: &Listed<'_>,
    places: &[Place],
) -> Result<Vec<Expr>, SqlError> {
    places
        .iter()
        .map(|place| match place {
            Place::Written(i) => Ok(listed.args[*i].1.clone()),
            Place::Default(d) => crate::parse::expression(&def.defaults[*d]),
            Place::Gathered(list) => Ok(Expr::Array(sqlparser::ast::Array {
                elem: list.iter().map(|i| listed.args[*i].1.clone()).collect(),
                named: true,
            })),
        })
        .collect()
}

/// The names of a call's written arguments.
pub fn names_of(listed: &Listed<'_>) -> Vec<Option<String>> {
    listed.args.iter().map(|(n, _)| n.clone()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(args: &[&str], modes: &[u8], defaults: usize) -> FunctionDef {
        FunctionDef {
            oid: 1,
            name: "f".into(),
            args: args.iter().map(|a| (a.to_string(), 23, -1)).collect(),
            result: (23, -1),
            returns_set: false,
            columns: Vec::new(),
            columns_of_table: false,
            volatility: b'v',
            strict: false,
            plpgsql: false,
            body: String::new(),
            procedure: false,
            modes: modes.to_vec(),
            defaults: vec!["0".to_string(); defaults],
        }
    }

    fn named(names: &[&str]) -> Vec<Option<String>> {
        names
            .iter()
            .map(|n| (!n.is_empty()).then(|| n.to_string()))
            .collect()
    }

    // Proves places, names and defaults fill the parameters, and that a
    // call leaving out a parameter without a default does not fit.
    #[test]
    fn places_names_and_defaults_fill_the_parameters() {
        let d = def(&["a", "b", "c", "d"], &[], 2);
        assert_eq!(
            fit(&d, &named(&["", "", "d"]), false),
            Some(vec![
                Place::Written(0),
                Place::Written(1),
                Place::Default(0),
                Place::Written(2)
            ])
        );
        assert_eq!(fit(&d, &named(&[""]), false), None);
        assert_eq!(fit(&d, &named(&["", "x"]), false), None);
        assert_eq!(fit(&d, &named(&["", "", "", "", ""]), false), None);
    }

    // Proves a VARIADIC parameter gathers the positional arguments from
    // its place on, takes `VARIADIC arr` whole, and needs one at least.
    #[test]
    fn a_variadic_parameter_gathers_or_takes_the_array() {
        let d = def(&["a", "v"], b"iv", 0);
        assert_eq!(
            fit(&d, &named(&["", "", ""]), false),
            Some(vec![Place::Written(0), Place::Gathered(vec![1, 2])])
        );
        assert_eq!(
            fit(&d, &named(&["", ""]), true),
            Some(vec![Place::Written(0), Place::Written(1)])
        );
        assert_eq!(fit(&d, &named(&[""]), false), None);
        assert_eq!(fit(&d, &named(&[""]), true), None);
    }

    // Proves two definitions a call fits alike are ambiguous, and one
    // that needs no gathering wins over one that does.
    #[test]
    fn alike_fits_are_ambiguous() {
        let two = def(&["a", "b"], &[], 2);
        let four = def(&["a", "b", "c", "d"], &[], 4);
        let names = named(&[""]);
        assert!(choose([&two, &four].into_iter(), &names, false, || None).is_err());
        let names = named(&["", "", ""]);
        assert_eq!(
            choose([&two, &four].into_iter(), &names, false, || None)
                .unwrap()
                .map(|d| d.args.len()),
            Some(4)
        );
    }
}
