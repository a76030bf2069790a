//! PostgreSQL 15's keywords that an identifier cannot be written as
//! without quotes: the reserved ones and those only usable as a column
//! name or as a type or function name (`pg_get_keywords()`'s categories
//! R, C and T). Its unreserved keywords (`name`, `text`, `key`) are
//! ordinary identifiers. [`crate::names::written`] quotes these, as
//! PostgreSQL's `quote_ident`, `format('%I')` and its deparsed SQL do.
//! Also the few keywords a select item's alias needs `AS` before
//! ([`bare_label`]; `bare_labels.rs` asks).

/// The keywords, sorted (as `pg_get_keywords()` lists them).
const NOT_UNRESERVED: [&str; 151] = [
    "all",
    "analyse",
    "analyze",
    "and",
    "any",
    "array",
    "as",
    "asc",
    "asymmetric",
    "authorization",
    "between",
    "bigint",
    "binary",
    "bit",
    "boolean",
    "both",
    "case",
    "cast",
    "char",
    "character",
    "check",
    "coalesce",
    "collate",
    "collation",
    "column",
    "concurrently",
    "constraint",
    "create",
    "cross",
    "current_catalog",
    "current_date",
    "current_role",
    "current_schema",
    "current_time",
    "current_timestamp",
    "current_user",
    "dec",
    "decimal",
    "default",
    "deferrable",
    "desc",
    "distinct",
    "do",
    "else",
    "end",
    "except",
    "exists",
    "extract",
    "false",
    "fetch",
    "float",
    "for",
    "foreign",
    "freeze",
    "from",
    "full",
    "grant",
    "greatest",
    "group",
    "grouping",
    "having",
    "ilike",
    "in",
    "initially",
    "inner",
    "inout",
    "int",
    "integer",
    "intersect",
    "interval",
    "into",
    "is",
    "isnull",
    "join",
    "lateral",
    "leading",
    "least",
    "left",
    "like",
    "limit",
    "localtime",
    "localtimestamp",
    "national",
    "natural",
    "nchar",
    "none",
    "normalize",
    "not",
    "notnull",
    "null",
    "nullif",
    "numeric",
    "offset",
    "on",
    "only",
    "or",
    "order",
    "out",
    "outer",
    "overlaps",
    "overlay",
    "placing",
    "position",
    "precision",
    "primary",
    "real",
    "references",
    "returning",
    "right",
    "row",
    "select",
    "session_user",
    "setof",
    "similar",
    "smallint",
    "some",
    "substring",
    "symmetric",
    "table",
    "tablesample",
    "then",
    "time",
    "timestamp",
    "to",
    "trailing",
    "treat",
    "trim",
    "true",
    "union",
    "unique",
    "user",
    "using",
    "values",
    "varchar",
    "variadic",
    "verbose",
    "when",
    "where",
    "window",
    "with",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// Whether `word` (lower case) is a keyword PostgreSQL reads as more than
/// a plain identifier.
pub fn needs_quotes(word: &str) -> bool {
    NOT_UNRESERVED.binary_search(&word).is_ok()
}

/// The keywords PostgreSQL 15 allows as a column name but not as a type or
/// function name (`pg_get_keywords()`'s category C), sorted.
const COL_NAME: [&str; 51] = [
    "between",
    "bigint",
    "bit",
    "boolean",
    "char",
    "character",
    "coalesce",
    "dec",
    "decimal",
    "exists",
    "extract",
    "float",
    "greatest",
    "grouping",
    "inout",
    "int",
    "integer",
    "interval",
    "least",
    "national",
    "nchar",
    "none",
    "normalize",
    "nullif",
    "numeric",
    "out",
    "overlay",
    "position",
    "precision",
    "real",
    "row",
    "setof",
    "smallint",
    "substring",
    "time",
    "timestamp",
    "treat",
    "trim",
    "values",
    "varchar",
    "xmlattributes",
    "xmlconcat",
    "xmlelement",
    "xmlexists",
    "xmlforest",
    "xmlnamespaces",
    "xmlparse",
    "xmlpi",
    "xmlroot",
    "xmlserialize",
    "xmltable",
];

/// Whether `word` (lower case) is PostgreSQL's `ColId`, a name a column,
/// table or window may have unquoted: an unreserved keyword, one of
/// category C, or no keyword.
pub fn col_id(word: &str) -> bool {
    !needs_quotes(word) || COL_NAME.binary_search(&word).is_ok()
}

/// The keywords PostgreSQL 15 takes as a select item's alias only after
/// `AS` (`pg_get_keywords()` with `barelabel = false`), sorted.
const NEED_AS: [&str; 39] = [
    "array",
    "as",
    "char",
    "character",
    "create",
    "day",
    "except",
    "fetch",
    "filter",
    "for",
    "from",
    "grant",
    "group",
    "having",
    "hour",
    "intersect",
    "into",
    "isnull",
    "limit",
    "minute",
    "month",
    "notnull",
    "offset",
    "on",
    "order",
    "over",
    "overlaps",
    "precision",
    "returning",
    "second",
    "to",
    "union",
    "varying",
    "where",
    "window",
    "with",
    "within",
    "without",
    "year",
];

/// Whether `word` (lower case) may be a select item's alias without
/// `AS`, as PostgreSQL's `BareColLabel`: any name or keyword but the few
/// that need it (`filter`, `over`, `day`, `from`, ...).
pub fn bare_label(word: &str) -> bool {
    NEED_AS.binary_search(&word).is_err()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the list is sorted (so the binary search finds every word),
    // and PostgreSQL's answers for a few words of each kind.
    #[test]
    fn keywords_are_sorted_and_classified() {
        assert!(NOT_UNRESERVED.windows(2).all(|w| w[0] < w[1]));
        for word in ["select", "int", "left", "user", "between", "xmltable"] {
            assert!(needs_quotes(word), "{word}");
        }
        for word in ["name", "text", "key", "abort", "zone", "id"] {
            assert!(!needs_quotes(word), "{word}");
        }
        assert!(NEED_AS.windows(2).all(|w| w[0] < w[1]));
        assert!(COL_NAME.windows(2).all(|w| w[0] < w[1]));
        for word in ["int", "between", "w", "name"] {
            assert!(col_id(word), "{word}");
        }
        for word in ["from", "left", "select", "order"] {
            assert!(!col_id(word), "{word}");
        }
        for word in ["filter", "over", "day", "from", "char", "varying"] {
            assert!(!bare_label(word), "{word}");
        }
        for word in ["view", "value", "name", "select", "left", "count"] {
            assert!(bare_label(word), "{word}");
        }
    }
}
