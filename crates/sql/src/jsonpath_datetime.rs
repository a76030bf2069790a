//! `.datetime()` of the SQL/JSON path language. Not built yet: a
//! string item is 0A000 (PostgreSQL reads it as a date, time or
//! timestamp); another item is PostgreSQL's 22031.

use crate::error::SqlError;
use crate::jsonpath_eval::{Evaluator, Failure, Item};
use folio_row::Jsonb;

/// `.datetime(template)` of `item`.
pub fn datetime(
    eval: &Evaluator<'_>,
    item: &Item,
    _template: Option<&str>,
) -> Result<Item, Failure> {
    let Item::Json(Jsonb::String(_)) = item else {
        return Err(eval.datetime_failure(SqlError::new(
            "22031",
            "jsonpath item method .datetime() can only be applied to a string",
        )));
    };
    Err(Failure::Error(SqlError::unsupported(
        "jsonpath item method .datetime() of a string",
    )))
}
