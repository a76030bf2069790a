//! `WITH ORDINALITY` of a FROM call that is planned as a query rather
//! than a function scan (a SQL function's call, expanded by
//! `record_functions::expand_factor`): the query's rows numbered from 1
//! in the order it gives them, as a last `bigint` column named
//! `ordinality` (a call's alias may rename it), as PostgreSQL numbers a
//! function's rows. A function scan numbers its own
//! (`table_functions.rs`).
//!
//! The number is `row_number() OVER ()`: a window without partition or
//! order keeps its input's order (README "Window functions"), so the
//! numbers follow the body's ORDER BY.

use crate::error::SqlError;
use sqlparser::ast::{Query, SetExpr, TableFactor};

/// The select item that numbers a query's rows.
pub const COLUMN: &str = "row_number() OVER () AS \"ordinality\"";

/// The name of the derived table [`numbered`] reads (not a name a client
/// can write unquoted).
const ROWS: &str = "$numbered";

/// `query`'s rows with their number after their columns: `SELECT
/// "$numbered".*, row_number() OVER () FROM (query) AS "$numbered"`.
pub fn numbered(query: Query) -> Result<Query, SqlError> {
    let mut wrapper = crate::parse::query(&format!(
        "SELECT \"{ROWS}\".*, {COLUMN} FROM (SELECT 1) AS \"{ROWS}\""
    ))?;
    let SetExpr::Select(select) = wrapper.body.as_mut() else {
        unreachable!("the wrapper is a SELECT")
    };
    let TableFactor::Derived { subquery, .. } = &mut select.from[0].relation else {
        unreachable!("the wrapper reads a derived table")
    };
    **subquery = query;
    Ok(wrapper)
}
