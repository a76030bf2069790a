//! `jsonpath` values (`Value::JsonPath`): a parsed SQL/JSON path of
//! PostgreSQL 15's path language, as a tree.
//!
//! The text is read by `jsonpath_parse.rs` (its tokens by
//! `jsonpath_scan.rs`) and printed by `jsonpath_text.rs` in PostgreSQL's
//! normalized form (`$.a` is `$."a"`, `$+1` is `($ + 1)`). The SQL layer
//! evaluates a path against a jsonb value (folio-sql `jsonpath_eval.rs`).
//!
//! A path is a mode (lax or strict) and one expression. An expression is
//! a primary (`$`, `@`, a variable, a literal, `last`) or an operator
//! over expressions, either followed by accessors (`.key`, `[*]`,
//! `? (filter)`, `.size()`, ...): [`PathExpr::Chain`]. A predicate
//! (`==`, `&&`, `exists`, `like_regex`, ...) is an expression whose
//! value is true, false or unknown.

/// A parsed path.
#[derive(Debug, Clone, PartialEq)]
pub struct JsonPath {
    /// `strict` mode; lax (the default) otherwise.
    pub strict: bool,
    pub expr: PathExpr,
}

/// The upper `**{... to last}` level, PostgreSQL's `PG_UINT32_MAX`.
pub const LAST_LEVEL: u32 = u32::MAX;

/// An expression of the path language.
#[derive(Debug, Clone, PartialEq)]
pub enum PathExpr {
    /// `$`: the document.
    Root,
    /// `@`: the item a filter tests.
    Current,
    /// `last`: the last subscript of the array subscripted.
    Last,
    /// `$name`: a value passed in `vars`.
    Variable(String),
    Null,
    Bool(bool),
    /// A number: its numeric's text (as jsonb keeps one).
    Number(String),
    String(String),
    /// Arithmetic, comparison, `&&`, `||` and `starts with`.
    Binary(BinaryOp, Box<PathExpr>, Box<PathExpr>),
    /// Unary `+` (false) or `-` (true) of an expression.
    Unary {
        negate: bool,
        arg: Box<PathExpr>,
    },
    /// `!(predicate)`.
    Not(Box<PathExpr>),
    /// `(predicate) is unknown`.
    IsUnknown(Box<PathExpr>),
    /// `exists (expr)`.
    Exists(Box<PathExpr>),
    /// `expr like_regex "pattern" flag "..."`.
    LikeRegex {
        expr: Box<PathExpr>,
        pattern: String,
        flags: RegexFlags,
    },
    /// An expression and the accessors applied to it in turn.
    Chain(Box<PathExpr>, Vec<Accessor>),
}

/// The binary operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BinaryOp {
    Add,
    Sub,
    Mul,
    Div,
    Mod,
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    And,
    Or,
    StartsWith,
}

impl BinaryOp {
    /// How the operator is written.
    pub fn symbol(self) -> &'static str {
        match self {
            BinaryOp::Add => "+",
            BinaryOp::Sub => "-",
            BinaryOp::Mul => "*",
            BinaryOp::Div => "/",
            BinaryOp::Mod => "%",
            BinaryOp::Eq => "==",
            BinaryOp::Ne => "!=",
            BinaryOp::Lt => "<",
            BinaryOp::Le => "<=",
            BinaryOp::Gt => ">",
            BinaryOp::Ge => ">=",
            BinaryOp::And => "&&",
            BinaryOp::Or => "||",
            BinaryOp::StartsWith => "starts with",
        }
    }

    /// Whether it compares two items (`==` ... `>=`).
    pub fn is_comparison(self) -> bool {
        matches!(
            self,
            BinaryOp::Eq | BinaryOp::Ne | BinaryOp::Lt | BinaryOp::Le | BinaryOp::Gt | BinaryOp::Ge
        )
    }
}

/// An accessor: what is applied to each item of the expression before it.
#[derive(Debug, Clone, PartialEq)]
pub enum Accessor {
    /// `.key` / `."key"`.
    Key(String),
    /// `.*`: every member's value.
    AnyKey,
    /// `[*]`: every element.
    AnyArray,
    /// `[a, b to c, ...]`.
    Subscripts(Vec<Subscript>),
    /// `.**{first to last}`: the item and its descendants at those
    /// levels ([`LAST_LEVEL`] for `last`).
    Any {
        first: u32,
        last: u32,
    },
    /// `? (predicate)`.
    Filter(Box<PathExpr>),
    Method(Method),
    /// `.datetime()` / `.datetime("template")`.
    Datetime(Option<String>),
}

/// One subscript: an index or a range `from to to`.
#[derive(Debug, Clone, PartialEq)]
pub struct Subscript {
    pub from: PathExpr,
    pub to: Option<PathExpr>,
}

/// The item methods without arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    Type,
    Size,
    Double,
    Ceiling,
    Floor,
    Abs,
    KeyValue,
}

impl Method {
    /// Its name, as written after the `.`.
    pub fn name(self) -> &'static str {
        match self {
            Method::Type => "type",
            Method::Size => "size",
            Method::Double => "double",
            Method::Ceiling => "ceiling",
            Method::Floor => "floor",
            Method::Abs => "abs",
            Method::KeyValue => "keyvalue",
        }
    }
}

/// The flags of `like_regex`: XQuery's `i`, `s`, `m`, `x` and `q`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RegexFlags(u8);

impl RegexFlags {
    pub const ICASE: RegexFlags = RegexFlags(1);
    pub const DOTALL: RegexFlags = RegexFlags(2);
    pub const MULTILINE: RegexFlags = RegexFlags(4);
    pub const EXPANDED: RegexFlags = RegexFlags(8);
    pub const QUOTE: RegexFlags = RegexFlags(16);
    /// The flags in the order PostgreSQL prints them, with their letters.
    pub const LETTERS: [(RegexFlags, char); 5] = [
        (RegexFlags::ICASE, 'i'),
        (RegexFlags::DOTALL, 's'),
        (RegexFlags::MULTILINE, 'm'),
        (RegexFlags::EXPANDED, 'x'),
        (RegexFlags::QUOTE, 'q'),
    ];

    pub fn contains(self, flag: RegexFlags) -> bool {
        self.0 & flag.0 != 0
    }

    pub fn insert(&mut self, flag: RegexFlags) {
        self.0 |= flag.0;
    }

    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
}

impl PathExpr {
    /// PostgreSQL's `operationPriority`: which operators bind tighter,
    /// for the printer's parentheses (an expression that is not an
    /// operator is 6; a chain is its head's).
    pub fn priority(&self) -> u8 {
        match self {
            PathExpr::Binary(op, ..) => match op {
                BinaryOp::Or => 0,
                BinaryOp::And => 1,
                BinaryOp::Add | BinaryOp::Sub => 3,
                BinaryOp::Mul | BinaryOp::Div | BinaryOp::Mod => 4,
                _ => 2,
            },
            PathExpr::Unary { .. } => 5,
            PathExpr::Chain(head, _) => head.priority(),
            _ => 6,
        }
    }

    /// The expression followed by `accessor` (chains are kept flat).
    pub fn then(self, accessor: Accessor) -> PathExpr {
        match self {
            PathExpr::Chain(head, mut accessors) => {
                accessors.push(accessor);
                PathExpr::Chain(head, accessors)
            }
            head => PathExpr::Chain(Box::new(head), vec![accessor]),
        }
    }
}
