//! OUT and INOUT parameters of SQL functions (README "Functions in FROM
//! and LATERAL"): what a function's result is when its parameter list
//! names its output columns, as PostgreSQL's `CREATE FUNCTION` decides
//! it. A function's `args` are its input parameters (IN, INOUT), which
//! calls pass; its OUT and INOUT parameters are its result's `columns`:
//!
//! - one output parameter: the result is that parameter's type (a call
//!   gives a value of it; in FROM a column named as the parameter),
//!   `SETOF` that type a set of them;
//! - more: the result is `record` with those columns (a call gives a
//!   row; in FROM one column each), `SETOF record` a set of them.
//!
//! A declared `RETURNS` must agree (PostgreSQL's 42P13s); an output
//! parameter without a name is named `columnN` by its position among the
//! output columns. A polymorphic output's type must be decided by an
//! input of its family (`polymorphic::check_result`).

use crate::error::SqlError;
use folio_row::SqlType;

/// An output parameter as written: its name (empty when it has none),
/// type oid and modifier.
pub type Output = (String, u32, i32);

/// The result of a function with output parameters `outputs` (not
/// empty) and input parameter types `inputs`: its type and columns,
/// given what it declared (`declared`: `RETURNS [SETOF] type`'s oid and
/// modifier, `None` when it has no RETURNS).
pub fn result(
    outputs: &[Output],
    inputs: &[u32],
    declared: Option<(u32, i32)>,
) -> Result<((u32, i32), Vec<Output>), SqlError> {
    assert!(!outputs.is_empty(), "a function with output parameters");
    for (_, oid, _) in outputs {
        crate::polymorphic::check_result(inputs, *oid)?;
    }
    let result = match outputs {
        [(_, oid, typmod)] => (*oid, *typmod),
        _ => (SqlType::Record.oid(), -1),
    };
    if let Some(declared) = declared
        && declared.0 != result.0
    {
        let must = crate::catalog_functions::format_type(i64::from(result.0), None);
        return Err(SqlError::new(
            "42P13",
            format!("function result type must be {must} because of OUT parameters"),
        ));
    }
    let columns = (outputs.iter().enumerate())
        .map(|(i, (name, oid, typmod))| {
            let name = match name.is_empty() {
                true => format!("column{}", i + 1),
                false => name.clone(),
            };
            (name, *oid, *typmod)
        })
        .collect();
    Ok((result, columns))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_output_is_the_result_and_more_are_a_record() {
        // One OUT int: the result is int, its column named as written.
        let one = vec![("f2".to_string(), 23, -1)];
        let (ty, columns) = result(&one, &[23], None).unwrap();
        assert_eq!((ty, columns), ((23, -1), one.clone()));
        // RETURNS float with an OUT int: PostgreSQL's 42P13.
        assert_eq!(
            result(&one, &[23], Some((701, -1))).unwrap_err().code,
            "42P13"
        );
        // Two: a record, the unnamed one named by its position.
        let two = vec![("f2".to_string(), 23, -1), (String::new(), 25, -1)];
        let (ty, columns) = result(&two, &[23], None).unwrap();
        assert_eq!(ty, (SqlType::Record.oid(), -1));
        assert_eq!(columns[1].0, "column2");
        assert!(result(&two, &[23], Some((23, -1))).is_err());
    }
}
