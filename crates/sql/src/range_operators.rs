//! The operators ranges and multiranges share (`@>`, `<@`, `&&`, `<<`,
//! `>>`, `&<`, `&>`, `-|-`, `+`, `*`, `-`): the one owner of which
//! symbol is which operation, for both families (`range_functions.rs`,
//! `multirange_functions.rs` bind and run them on their own values).

use sqlparser::ast::BinaryOperator;

/// An operation of the range operator family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RangeOp {
    /// `@>`.
    Contains,
    /// `<@`.
    ContainedBy,
    /// `&&`.
    Overlaps,
    /// `<<`.
    Before,
    /// `>>`.
    After,
    /// `&<`.
    NotRight,
    /// `&>`.
    NotLeft,
    /// `-|-`.
    Adjacent,
    /// `+`.
    Union,
    /// `*`.
    Intersect,
    /// `-`.
    Minus,
}

/// Each operation with its symbol and the word PostgreSQL's functions
/// for it are named by (`range_overleft`, `multirange_overleft_range`).
const OPERATIONS: [(RangeOp, &str, &str); 11] = [
    (RangeOp::Contains, "@>", "contains"),
    (RangeOp::ContainedBy, "<@", "contained_by"),
    (RangeOp::Overlaps, "&&", "overlaps"),
    (RangeOp::Before, "<<", "before"),
    (RangeOp::After, ">>", "after"),
    (RangeOp::NotRight, "&<", "overleft"),
    (RangeOp::NotLeft, "&>", "overright"),
    (RangeOp::Adjacent, "-|-", "adjacent"),
    (RangeOp::Union, "+", "union"),
    (RangeOp::Intersect, "*", "intersect"),
    (RangeOp::Minus, "-", "minus"),
];

impl RangeOp {
    /// Every operation, in PostgreSQL's catalog order.
    pub fn all() -> impl Iterator<Item = RangeOp> {
        OPERATIONS.iter().map(|(op, _, _)| *op)
    }

    /// The operator's symbol (EXPLAIN, error texts).
    pub fn symbol(self) -> &'static str {
        OPERATIONS.iter().find(|(op, _, _)| *op == self).unwrap().1
    }

    /// The word naming the operation in its functions' names.
    pub fn word(self) -> &'static str {
        OPERATIONS.iter().find(|(op, _, _)| *op == self).unwrap().2
    }

    /// The operation a word of a function's name names.
    pub fn of_word(word: &str) -> Option<RangeOp> {
        OPERATIONS
            .iter()
            .find(|(_, _, w)| *w == word)
            .map(|(op, _, _)| *op)
    }

    /// The operation a binary operator written in SQL is, if any
    /// (`-|-` also schema-qualified: `OPERATOR(pg_catalog.-|-)`).
    pub fn of_operator(op: &BinaryOperator) -> Option<RangeOp> {
        Some(match op {
            BinaryOperator::AtArrow => RangeOp::Contains,
            BinaryOperator::ArrowAt => RangeOp::ContainedBy,
            BinaryOperator::PGOverlap => RangeOp::Overlaps,
            BinaryOperator::PGBitwiseShiftLeft => RangeOp::Before,
            BinaryOperator::PGBitwiseShiftRight => RangeOp::After,
            BinaryOperator::AndLt => RangeOp::NotRight,
            BinaryOperator::AndGt => RangeOp::NotLeft,
            BinaryOperator::Plus => RangeOp::Union,
            BinaryOperator::Multiply => RangeOp::Intersect,
            BinaryOperator::Minus => RangeOp::Minus,
            BinaryOperator::Custom(symbol) if symbol == "-|-" => RangeOp::Adjacent,
            BinaryOperator::PGCustomBinaryOperator(parts)
                if matches!(parts.as_slice(), [s] if s == "-|-")
                    || matches!(parts.as_slice(), [schema, s]
                        if schema.eq_ignore_ascii_case("pg_catalog") && s == "-|-") =>
            {
                RangeOp::Adjacent
            }
            _ => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn symbols_and_words_name_one_operation_each() {
        for op in RangeOp::all() {
            assert_eq!(RangeOp::of_word(op.word()), Some(op));
            assert_eq!(
                RangeOp::all().filter(|o| o.symbol() == op.symbol()).count(),
                1
            );
        }
        assert_eq!(
            RangeOp::of_operator(&BinaryOperator::AndLt),
            Some(RangeOp::NotRight)
        );
        assert_eq!(RangeOp::NotRight.word(), "overleft");
    }
}
