//! folio's SQL layer: a [`Session`] takes SQL text and runs it for real
//! against a [`folio_db::Database`] (its catalog, heap tables and
//! indexes). Synchronous and in-process; the server crate carries it over
//! the PostgreSQL wire protocol. Design and status: `README.md`.

mod access;
mod aggregate;
mod alter_type;
mod array_functions;
mod catalog_functions;
mod conflict;
mod constraints;
mod context;
mod copy;
mod copy_format;
mod cost;
mod cte;
mod date_arith;
mod datetime;
mod dch;
mod ddl;
mod deparse;
mod dml;
mod drop_column;
mod error;
mod explain;
mod expr;
mod from;
mod functions;
mod indexes;
mod information_schema;
mod interrupt;
mod interval_functions;
mod lookups;
mod names;
mod numeric_functions;
mod output;
mod params;
mod parse;
mod plan;
mod position;
mod query;
mod recursive;
mod regex_match;
pub mod roles;
mod scalar;
mod scan;
mod sequences;
mod session;
mod set_types;
mod settings;
mod shape;
mod statement;
mod subquery;
mod system;
mod system_cast;
mod system_proc;
mod table_functions;
mod to_char;
mod to_timestamp;
mod types;
mod window;
mod window_frame;

pub use error::{SqlError, Subject};
pub use output::{Column, Notice, Output, TxStatus};
pub use session::Session;
pub use settings::SERVER_VERSION;
pub use types::{binary_input, binary_output, text_output};
