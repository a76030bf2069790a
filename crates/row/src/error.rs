//! What encoding and decoding report, with PostgreSQL's SQLSTATEs.

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RowError {
    /// A value does not fit its column's type.
    #[error("value of type {value} does not match column type {column}")]
    TypeMismatch { value: String, column: String },
    /// More or fewer values than columns.
    #[error("{values} values for {columns} columns")]
    Arity { values: usize, columns: usize },
    /// `varchar(n)` / `char(n)` overflow.
    #[error("value too long for type {0}")]
    TooLong(String),
    /// A numeric beyond this build's precision.
    #[error("numeric value out of range: {0}")]
    NumericOutOfRange(String),
    /// A numeric with more digits before the point than its column's
    /// `numeric(precision, scale)` allows (PostgreSQL's message; its
    /// DETAIL is [`RowError::detail`]).
    #[error("numeric field overflow")]
    NumericFieldOverflow { precision: u16, scale: u16 },
    /// An infinity assigned to a `numeric(precision, scale)` column
    /// (PostgreSQL's message; its DETAIL is [`RowError::detail`]).
    #[error("numeric field overflow")]
    NumericFieldInfinite { precision: u16, scale: u16 },
    /// An index key over [`crate::MAX_KEY_LEN`].
    #[error("index row size {len} exceeds btree version 4 maximum {max} for index")]
    KeyTooLong { len: usize, max: usize },
    /// An index key whose PostgreSQL index tuple would pass PostgreSQL's
    /// largest (`datum_width::index_row_size`).
    #[error("index row requires {len} bytes, maximum size is {max}")]
    IndexRowTooLarge { len: usize, max: usize },
    /// Text that is not a value of the type (PostgreSQL's wording).
    #[error("invalid input syntax for type {type_name}: \"{text}\"")]
    InvalidText { type_name: String, text: String },

    /// A number past PostgreSQL's numeric format (131072 digits before
    /// the point, 16383 after), as a jsonb number may be.
    #[error("value overflows numeric format")]
    NumericFormatOverflow,
    /// Text that is not JSON (PostgreSQL's message, for json and jsonb
    /// alike; the DETAIL says what is wrong).
    #[error("invalid input syntax for type json")]
    InvalidJson(String),
    /// A JSON escape `\u0000` where the string must become text (22P05).
    #[error("unsupported Unicode escape sequence")]
    UntranslatableJson,
    /// Bad input whose message is PostgreSQL's own for it (`invalid
    /// hexadecimal digit: "z"`).
    #[error("{0}")]
    InvalidInput(String),
    /// What PostgreSQL does not implement either (0A000; its message).
    #[error("{0}")]
    Unsupported(String),
    /// Input nested past the parser's depth (PostgreSQL's
    /// `max_stack_depth` error, 54001).
    #[error("stack depth limit exceeded")]
    StackDepth,
    /// Text whose value the type cannot hold.
    #[error("value \"{text}\" is out of range for type {type_name}")]
    OutOfRange { type_name: String, text: String },
    /// Float text whose value the type cannot hold (PostgreSQL's wording
    /// for floats has no "value").
    #[error("\"{text}\" is out of range for type {type_name}")]
    FloatOutOfRange { type_name: String, text: String },
    /// Text that is not a date or time (PostgreSQL's 22007).
    #[error("invalid input syntax for type {type_name}: \"{text}\"")]
    InvalidDateTime { type_name: String, text: String },
    /// A zone name in date/time text that no zone has (`Foo/Bar`:
    /// PostgreSQL's 22023; its text lower case, as PostgreSQL reads
    /// date/time text).
    #[error("time zone \"{0}\" not recognized")]
    UnknownTimeZone(String),
    /// A time's zone offset of 16 hours or more (PostgreSQL's 22009).
    #[error("time zone displacement out of range: \"{0}\"")]
    ZoneDisplacement(String),
    /// A date or time with a field out of range (2023-02-30).
    #[error("date/time field value out of range: \"{0}\"")]
    DateTimeOutOfRange(String),
    /// Interval arithmetic past an interval's fields (22008).
    #[error("interval out of range")]
    IntervalOutOfRange,
    /// An interval's text with a field its parts cannot hold (22015).
    #[error("interval field value out of range: \"{0}\"")]
    IntervalFieldOutOfRange(String),
    /// Timestamp arithmetic past PostgreSQL's range (22008).
    #[error("timestamp out of range")]
    TimestampOutOfRange,
    /// An interval divided by zero (22012).
    #[error("division by zero")]
    DivisionByZero,
    /// An integer assigned to a narrower integer column that cannot hold
    /// it (PostgreSQL's "integer out of range").
    #[error("{0} out of range")]
    IntegerOutOfRange(String),
    /// A range literal that is not one (22P02; the DETAIL says why).
    #[error("malformed range literal: \"{text}\"")]
    MalformedRange { text: String, detail: &'static str },
    /// A multirange literal that is not one (22P02; the DETAIL says why).
    #[error("malformed multirange literal: \"{text}\"")]
    MalformedMultirange { text: String, detail: &'static str },
    /// An array literal that is not one (22P02; the DETAIL says why, in
    /// PostgreSQL's words).
    #[error("malformed array literal: \"{text}\"")]
    MalformedArray { text: String, detail: String },
    /// Text that is not a value of a composite type (PostgreSQL's
    /// `record_in`; the DETAIL says what is wrong).
    #[error("malformed record literal: \"{text}\"")]
    MalformedRecord { text: String, detail: String },
    /// PostgreSQL's 22000 (data exception) with its message: a range's
    /// bounds out of order, a union or difference in two pieces.
    #[error("{0}")]
    DataException(String),
    /// Date arithmetic past PostgreSQL's dates (22008).
    #[error("date out of range")]
    DateOutOfRange,
    /// Date or timestamp text past PostgreSQL's range (22008; the type
    /// `date` or `timestamp`, for a timestamptz too).
    #[error("{type_name} out of range: \"{text}\"")]
    InputOutOfRange {
        type_name: &'static str,
        text: String,
    },
    /// A difference with an infinite date or timestamp (22008; the
    /// plural of the type: `dates`, `timestamps`).
    #[error("cannot subtract infinite {0}")]
    InfiniteSubtraction(&'static str),
    /// Arrays whose shapes do not fit together, or a subscript outside
    /// what an assignment can reach (PostgreSQL's 2202E, its message).
    #[error("{0}")]
    ArrayShape(String),
    /// An array past PostgreSQL's limits: dimensions, bounds, elements
    /// (54000, its message).
    #[error("{0}")]
    ArrayLimit(String),
    /// A `cidr` whose address has bits right of its mask (`inet.rs`;
    /// 22P02 with PostgreSQL's DETAIL).
    #[error("invalid cidr value: \"{text}\"")]
    CidrHostBits { text: String },
    /// A `macaddr` octet past 255 (`macaddr.rs`; 22003).
    #[error("invalid octet value in \"macaddr\" value: \"{text}\"")]
    MacOctet { text: String },
    /// A bit string assigned to a `bit(n)` of another length
    /// (PostgreSQL's 22026, `bits.rs`).
    #[error("bit string length {len} does not match type bit({n})")]
    BitLengthMismatch { len: usize, n: u32 },
    /// A bit string longer than its `bit varying(n)` (22001).
    #[error("bit string too long for type bit varying({0})")]
    BitStringTooLong(u32),
    /// Text search input and limits (`ts_token.rs`, `tsvector.rs`,
    /// `tsquery.rs`): PostgreSQL's SQLSTATE and message.
    #[error("{message}")]
    TextSearch { code: &'static str, message: String },
    /// A bit string past PostgreSQL's longest (54000).
    #[error("bit string length exceeds the maximum allowed ({0})")]
    BitStringLimit(usize),
    /// A `jsonpath` syntax error (42601), its whole message
    /// (`jsonpath_scan.rs`).
    #[error("{0}")]
    JsonPathSyntax(String),
    /// `jsonpath` text PostgreSQL refuses with a DETAIL: 42601 for a
    /// `syntax` error (a bad `like_regex` flag), 22P02 otherwise (a lone
    /// surrogate).
    #[error("invalid input syntax for type jsonpath")]
    JsonPathInvalid { syntax: bool, detail: String },
    /// Stored bytes that are not a row or key of the expected shape.
    #[error("corrupt row or key: {0}")]
    Corrupt(String),
}

impl RowError {
    /// PostgreSQL's DETAIL for the condition, where it gives one.
    pub fn detail(&self) -> Option<String> {
        match self {
            RowError::NumericFieldOverflow { precision, scale } => {
                // PostgreSQL prints 10^0 as 1.
                let digits = i32::from(*precision) - i32::from(*scale);
                let limit = match digits {
                    0 => "1".to_string(),
                    d => format!("10^{d}"),
                };
                Some(format!(
                    "A field with precision {precision}, scale {scale} must round to an absolute value less than {limit}."
                ))
            }
            RowError::NumericFieldInfinite { precision, scale } => Some(format!(
                "A field with precision {precision}, scale {scale} cannot hold an infinite value."
            )),
            RowError::InvalidJson(detail) => Some(detail.clone()),
            RowError::UntranslatableJson => Some("\\u0000 cannot be converted to text.".into()),
            RowError::MalformedRange { detail, .. }
            | RowError::MalformedMultirange { detail, .. } => Some(detail.to_string()),
            RowError::MalformedArray { detail, .. } | RowError::MalformedRecord { detail, .. } => {
                Some(detail.clone())
            }
            RowError::CidrHostBits { .. } => Some("Value has bits set to right of mask.".into()),
            RowError::JsonPathInvalid { detail, .. } => Some(detail.clone()),
            _ => None,
        }
    }

    pub fn sqlstate(&self) -> &'static str {
        match self {
            RowError::TypeMismatch { .. } => "42804",
            RowError::Arity { .. } => "42601",
            RowError::TooLong(_) | RowError::BitStringTooLong(_) => "22001",
            RowError::BitLengthMismatch { .. } => "22026",
            RowError::NumericOutOfRange(_)
            | RowError::NumericFieldOverflow { .. }
            | RowError::NumericFieldInfinite { .. }
            | RowError::IntegerOutOfRange(_)
            | RowError::NumericFormatOverflow
            | RowError::MacOctet { .. } => "22003",
            RowError::KeyTooLong { .. }
            | RowError::IndexRowTooLarge { .. }
            | RowError::ArrayLimit(_)
            | RowError::BitStringLimit(_) => "54000",
            RowError::ArrayShape(_) => "2202E",
            RowError::InvalidText { .. }
            | RowError::InvalidInput(_)
            | RowError::InvalidJson(_)
            | RowError::MalformedRange { .. }
            | RowError::MalformedMultirange { .. }
            | RowError::MalformedArray { .. }
            | RowError::MalformedRecord { .. }
            | RowError::CidrHostBits { .. } => "22P02",
            RowError::DataException(_) => "22000",
            RowError::DateOutOfRange
            | RowError::InfiniteSubtraction(_)
            | RowError::InputOutOfRange { .. } => "22008",
            RowError::UntranslatableJson => "22P05",
            RowError::OutOfRange { .. } | RowError::FloatOutOfRange { .. } => "22003",
            RowError::DateTimeOutOfRange(_)
            | RowError::IntervalOutOfRange
            | RowError::TimestampOutOfRange => "22008",
            RowError::IntervalFieldOutOfRange(_) => "22015",
            RowError::DivisionByZero => "22012",
            RowError::InvalidDateTime { .. } => "22007",
            RowError::UnknownTimeZone(_) => "22023",
            RowError::ZoneDisplacement(_) => "22009",
            RowError::TextSearch { code, .. } => code,
            RowError::Corrupt(_) => "XX001",
            RowError::JsonPathSyntax(_) | RowError::JsonPathInvalid { syntax: true, .. } => "42601",
            RowError::JsonPathInvalid { .. } => "22P02",
            RowError::Unsupported(_) => "0A000",
            RowError::StackDepth => "54001",
        }
    }
}
