//! SQL types: the ones PostgreSQL's pgbench and everyday OLTP use, with
//! PostgreSQL's type oids and names.

use crate::composites::CompositeType;
use crate::enums::EnumType;
use crate::geometry::GeoKind;
use crate::interval_typmod::IntervalTypmod;
use crate::range::RangeKind;
use crate::reg::RegKind;

/// A column's type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SqlType {
    Int2,
    Int4,
    Int8,
    Float4,
    Float8,
    /// `numeric(precision, scale)`; `None`: unconstrained.
    Numeric(Option<(u16, u16)>),
    Text,
    /// `varchar(n)`; `None`: no limit.
    Varchar(Option<u32>),
    /// `char(n)` (blank-padded).
    Char(u32),
    Bytea,
    Bool,
    Date,
    /// `timestamp [(p)] [without time zone]`: microseconds since
    /// 2000-01-01; the precision, if any, as a time's (`timestamp(2)`
    /// keeps two digits of the seconds' fraction).
    Timestamp(Option<u8>),
    /// `timestamp [(p)] with time zone` (`timestamptz`); the precision
    /// as a timestamp's.
    TimestampTz(Option<u8>),
    /// `time [(p)] [without time zone]`: a time of day (`time.rs`); the
    /// precision, if any, is the digits of its seconds' fraction kept
    /// (0 to 6).
    Time(Option<u8>),
    /// `time [(p)] with time zone` (`timetz`): a time of day and its
    /// zone's offset (`time_with_zone.rs`); the precision as a time's.
    TimeTz(Option<u8>),
    Uuid,
    /// `interval`, with its modifier if any (`interval day to second(2)`,
    /// `interval(3)`: `interval_typmod.rs`).
    Interval(Option<IntervalTypmod>),
    /// A one-dimensional array of its element type (`int8[]`, `text[]`):
    /// a value of queries and of the pg_catalog relations, never a
    /// stored column's type. Made by [`SqlType::array_of`].
    Array(&'static SqlType),
    /// A row value (`ROW(1, 'a')`, a whole-row reference `t`): always
    /// PostgreSQL's anonymous `record` (oid 2249) here, whatever its
    /// fields; like arrays, never a stored column's type.
    Record,
    /// `json`: its text as written, checked to be JSON.
    Json,
    /// `jsonb`: normalized JSON (`json.rs`).
    Jsonb,
    /// `jsonpath` (`jsonpath.rs`); its values are `Value::JsonPath`.
    JsonPath,
    /// A user-defined enum type, as one catalog version defines it
    /// (`enums.rs`): its oid, name and labels.
    Enum(&'static EnumType),
    /// A user-defined composite type, as one catalog version defines it
    /// (`composites.rs`): its oid, name and fields. Its values are
    /// `Value::Record`s of its fields' types.
    Composite(&'static CompositeType),
    /// `oid`: an object identifier, an unsigned 4-byte integer (`oid.rs`).
    Oid,
    /// `"char"`: PostgreSQL's one-byte internal type of the catalog's
    /// code columns (`pg_type.typtype`); its values are one-character
    /// texts (`Value::Text`). Only the pg_catalog relations have it.
    InternalChar,
    /// `name`: an identifier, at most 63 bytes (`name.rs`); its values
    /// are texts.
    Name,
    /// `tid`: a row version's place, `(block,offset)` (`tid.rs`); the
    /// type of the system column `ctid`, never a stored column's.
    Tid,
    /// `xid`: a transaction id (`tid.rs`); the type of the system
    /// columns `xmin` and `xmax`, never a stored column's.
    Xid,
    /// `pg_lsn`: a write-ahead log position (`lsn.rs`).
    PgLsn,
    /// `money`: an amount in cents (`money.rs`).
    Money,
    /// `xid8`: a 64-bit transaction id (`xid_snapshot.rs`).
    Xid8,
    /// `pg_snapshot`: a snapshot as transaction ids (`xid_snapshot.rs`).
    PgSnapshot,
    /// `txid_snapshot`: the same values under the older name.
    TxidSnapshot,
    /// `inet`: a host address with its network's mask (`inet.rs`).
    Inet,
    /// `cidr`: a network address (`inet.rs`).
    Cidr,
    /// `macaddr`: a 6-byte MAC address (`macaddr.rs`).
    MacAddr,
    /// `macaddr8`: an 8-byte (EUI-64) MAC address (`macaddr.rs`).
    MacAddr8,
    /// `refcursor`: the name of a cursor (a portal), PostgreSQL's text-like
    /// type of PL/pgSQL's cursor variables; its values are texts
    /// (`Value::Text`), stored and keyed as text.
    Refcursor,
    /// A built-in range type (`int4range`, ..., `range.rs`); its values
    /// are `Value::Range`.
    Range(RangeKind),
    /// The multirange type of a built-in range type (`int4multirange`,
    /// ..., `multirange.rs`); its values are `Value::Multirange`.
    Multirange(RangeKind),
    /// `bit(n)`: exactly `n` bits (`bits.rs`); `None`, any length (the
    /// type of a `B'...'` literal and of the bit operators' results; a
    /// column's `bit` alone is `bit(1)`).
    Bit(Option<u32>),
    /// `bit varying(n)` (`varbit`): at most `n` bits; `None`, any.
    VarBit(Option<u32>),
    /// A geometric type (`point`, `box`, ...: `geometry.rs`); its values
    /// are `Value::Geo`.
    Geo(GeoKind),
    /// `tsvector` (`tsvector.rs`).
    TsVector,
    /// `tsquery` (`tsquery.rs`).
    TsQuery,
    /// An OID alias type (`regclass`, `regtype`, ...: `reg.rs`); its
    /// values are `Value::Reg`.
    Reg(RegKind),
}

/// Most distinct element types with a modifier that arrays keep
/// ([`SqlType::array_keeping_modifier`]; 32 bytes each).
const MAX_MODIFIED_ELEMENTS: usize = 4096;

/// The element types arrays have.
static ELEMENTS: [SqlType; 57] = [
    SqlType::Bool,
    SqlType::Bytea,
    SqlType::Int2,
    SqlType::Int4,
    SqlType::Int8,
    SqlType::Text,
    SqlType::Varchar(None),
    SqlType::Float4,
    SqlType::Float8,
    SqlType::Numeric(None),
    SqlType::Date,
    SqlType::Timestamp(None),
    SqlType::TimestampTz(None),
    SqlType::Time(None),
    SqlType::TimeTz(None),
    SqlType::Uuid,
    SqlType::Interval(None),
    SqlType::Oid,
    SqlType::Refcursor,
    SqlType::Name,
    SqlType::InternalChar,
    SqlType::PgLsn,
    SqlType::Money,
    SqlType::Xid8,
    SqlType::PgSnapshot,
    SqlType::TxidSnapshot,
    SqlType::Inet,
    SqlType::Cidr,
    SqlType::MacAddr,
    SqlType::MacAddr8,
    SqlType::Bit(None),
    SqlType::VarBit(None),
    SqlType::Geo(GeoKind::Point),
    SqlType::Geo(GeoKind::Lseg),
    SqlType::Geo(GeoKind::Box),
    SqlType::Geo(GeoKind::Line),
    SqlType::Geo(GeoKind::Path),
    SqlType::Geo(GeoKind::Polygon),
    SqlType::Geo(GeoKind::Circle),
    SqlType::Json,
    SqlType::Jsonb,
    SqlType::JsonPath,
    SqlType::TsVector,
    SqlType::TsQuery,
    SqlType::Range(RangeKind::Int4),
    SqlType::Range(RangeKind::Int8),
    SqlType::Range(RangeKind::Num),
    SqlType::Range(RangeKind::Date),
    SqlType::Range(RangeKind::Ts),
    SqlType::Range(RangeKind::Tstz),
    SqlType::Multirange(RangeKind::Int4),
    SqlType::Multirange(RangeKind::Int8),
    SqlType::Multirange(RangeKind::Num),
    SqlType::Multirange(RangeKind::Date),
    SqlType::Multirange(RangeKind::Ts),
    SqlType::Multirange(RangeKind::Tstz),
    SqlType::Record,
];

impl SqlType {
    /// PostgreSQL's type oid.
    pub fn oid(self) -> u32 {
        match self {
            SqlType::Int2 => 21,
            SqlType::Int4 => 23,
            SqlType::Int8 => 20,
            SqlType::Float4 => 700,
            SqlType::Float8 => 701,
            SqlType::Numeric(_) => 1700,
            SqlType::Text => 25,
            SqlType::Varchar(_) => 1043,
            SqlType::Char(_) => 1042,
            SqlType::Bytea => 17,
            SqlType::Bool => 16,
            SqlType::Date => 1082,
            SqlType::Timestamp(_) => 1114,
            SqlType::TimestampTz(_) => 1184,
            SqlType::Time(_) => 1083,
            SqlType::TimeTz(_) => 1266,
            SqlType::Uuid => 2950,
            SqlType::Interval(_) => 1186,
            SqlType::Record => 2249,
            SqlType::Json => 114,
            SqlType::Jsonb => 3802,
            SqlType::JsonPath => 4072,
            SqlType::Enum(def) => def.oid,
            SqlType::Composite(def) => def.oid,
            SqlType::Oid => 26,
            SqlType::InternalChar => 18,
            SqlType::Name => 19,
            SqlType::Tid => 27,
            SqlType::Xid => 28,
            SqlType::PgLsn => 3220,
            SqlType::Money => 790,
            SqlType::Xid8 => 5069,
            SqlType::PgSnapshot => 5038,
            SqlType::TxidSnapshot => 2970,
            SqlType::Inet => 869,
            SqlType::Cidr => 650,
            SqlType::MacAddr => 829,
            SqlType::MacAddr8 => 774,
            SqlType::Refcursor => 1790,
            SqlType::Bit(_) => 1560,
            SqlType::VarBit(_) => 1562,
            SqlType::Geo(kind) => kind.oid(),
            SqlType::TsVector => 3614,
            SqlType::TsQuery => 3615,
            SqlType::Reg(kind) => kind.oid(),
            SqlType::Range(kind) => kind.oid(),
            SqlType::Multirange(kind) => kind.multirange_oid(),
            SqlType::Array(element) => match element {
                SqlType::Bool => 1000,
                SqlType::Bytea => 1001,
                SqlType::Int2 => 1005,
                SqlType::Int4 => 1007,
                SqlType::Varchar(_) => 1015,
                SqlType::Char(_) => 1014,
                SqlType::Int8 => 1016,
                SqlType::Float4 => 1021,
                SqlType::Float8 => 1022,
                SqlType::Timestamp(_) => 1115,
                SqlType::Date => 1182,
                SqlType::TimestampTz(_) => 1185,
                SqlType::Time(_) => 1183,
                SqlType::TimeTz(_) => 1270,
                SqlType::Numeric(_) => 1231,
                SqlType::Uuid => 2951,
                SqlType::Interval(_) => 1187,
                SqlType::Enum(def) => def.array_oid,
                SqlType::Composite(def) => def.array_oid,
                SqlType::Oid => 1028,
                SqlType::Refcursor => 2201,
                SqlType::Name => 1003,
                SqlType::InternalChar => 1002,
                SqlType::PgLsn => 3221,
                SqlType::Money => 791,
                SqlType::Xid8 => 271,
                SqlType::PgSnapshot => 5039,
                SqlType::TxidSnapshot => 2949,
                SqlType::Inet => 1041,
                SqlType::Cidr => 651,
                SqlType::MacAddr => 1040,
                SqlType::MacAddr8 => 775,
                SqlType::Bit(_) => 1561,
                SqlType::VarBit(_) => 1563,
                SqlType::Geo(kind) => kind.array_oid(),
                SqlType::Json => 199,
                SqlType::Jsonb => 3807,
                SqlType::JsonPath => 4073,
                SqlType::TsVector => 3643,
                SqlType::TsQuery => 3645,
                SqlType::Range(kind) => kind.array_oid(),
                SqlType::Multirange(kind) => kind.multirange_array_oid(),
                SqlType::Record => 2287,
                SqlType::Reg(kind) => kind.array_oid(),
                _ => 1009,
            },
        }
    }

    /// The array type of elements of type `self` (a length or precision
    /// is dropped, as PostgreSQL's array of `varchar(n)` is `varchar[]`);
    /// `None` for `char(n)` and arrays (no arrays of those here).
    pub fn array_of(self) -> Option<SqlType> {
        let element = match self {
            SqlType::Enum(def) => return Some(SqlType::Array(def.sql_type())),
            SqlType::Composite(def) => return Some(SqlType::Array(def.sql_type())),
            // (`char(n)` has none here; a bit string's element drops its
            // length, which `unmodified` keeps.)
            SqlType::Char(_) => self,
            SqlType::Bit(_) => SqlType::Bit(None),
            other => other.unmodified(),
        };
        ELEMENTS.iter().find(|e| **e == element).map(SqlType::Array)
    }

    /// The type without its length or precision (`varchar(5)` is
    /// `varchar`, `char(5)` `bpchar`, `numeric(5,2)` `numeric`,
    /// `timestamp(0)` `timestamp`): PostgreSQL's type of an `unknown`
    /// literal compared with or combined with a value of `self` (a bit
    /// string keeps its length).
    pub fn unmodified(self) -> SqlType {
        match self {
            SqlType::Char(_) => SqlType::Char(0),
            SqlType::Varchar(_) => SqlType::Varchar(None),
            SqlType::Numeric(_) => SqlType::Numeric(None),
            SqlType::Time(_) => SqlType::Time(None),
            SqlType::TimeTz(_) => SqlType::TimeTz(None),
            SqlType::Timestamp(_) => SqlType::Timestamp(None),
            SqlType::TimestampTz(_) => SqlType::TimestampTz(None),
            SqlType::Interval(_) => SqlType::Interval(None),
            SqlType::VarBit(_) => SqlType::VarBit(None),
            other => other,
        }
    }

    /// The array type of a column whose elements keep their length or
    /// precision (`varchar(5)[]`, `char(5)[]`, `numeric(5,2)[]`: PostgreSQL
    /// applies a column's modifier to each element); a type without a
    /// modifier gives [`SqlType::array_of`]'s. The element type is made
    /// once per distinct type and kept for the process, so `SqlType` stays
    /// `Copy`; past `MAX_MODIFIED_ELEMENTS` distinct ones, `None`.
    pub fn array_keeping_modifier(self) -> Option<SqlType> {
        if self.typmod() == -1 {
            return self.array_of();
        }
        // The unmodified element must have an array type (`char(n)`'s is
        // PostgreSQL's `bpchar[]`).
        if !matches!(self, SqlType::Char(_)) {
            self.array_of()?;
        }
        static KEPT: std::sync::Mutex<Vec<&'static SqlType>> = std::sync::Mutex::new(Vec::new());
        let mut kept = KEPT.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(element) = kept.iter().find(|e| ***e == self) {
            return Some(SqlType::Array(element));
        }
        if kept.len() >= MAX_MODIFIED_ELEMENTS {
            return None;
        }
        let element: &'static SqlType = Box::leak(Box::new(self));
        kept.push(element);
        Some(SqlType::Array(element))
    }

    /// The element type of an array type.
    pub fn element(self) -> Option<SqlType> {
        match self {
            SqlType::Array(e) => Some(*e),
            _ => None,
        }
    }

    /// PostgreSQL's type modifier (`atttypmod`): -1 when there is none.
    pub fn typmod(self) -> i32 {
        match self {
            // `Char(0)` is `bpchar`, a char without a length.
            SqlType::Char(0) => -1,
            SqlType::Varchar(Some(n)) | SqlType::Char(n) => n as i32 + 4,
            SqlType::Numeric(Some((p, s))) => (((p as i32) << 16) | s as i32) + 4,
            // PostgreSQL's time and timestamp typmod is the precision
            // itself.
            SqlType::Time(Some(p))
            | SqlType::TimeTz(Some(p))
            | SqlType::Timestamp(Some(p))
            | SqlType::TimestampTz(Some(p)) => i32::from(p),
            SqlType::Interval(Some(modifier)) => modifier.typmod(),
            // A bit string's is its length itself.
            SqlType::Bit(Some(n)) | SqlType::VarBit(Some(n)) => n as i32,
            // A column's array keeps its elements' (PostgreSQL's
            // `atttypmod` of `varchar(5)[]` is `varchar(5)`'s).
            SqlType::Array(element) => element.typmod(),
            _ => -1,
        }
    }

    /// The type of an oid and modifier (as the catalog stores them).
    pub fn from_oid(oid: u32, typmod: i32) -> Option<SqlType> {
        let modifier = (typmod >= 4).then(|| (typmod - 4) as u32);
        let precision = u8::try_from(typmod).ok().filter(|p| *p <= 6);
        Some(match oid {
            21 => SqlType::Int2,
            23 => SqlType::Int4,
            20 => SqlType::Int8,
            700 => SqlType::Float4,
            701 => SqlType::Float8,
            1700 => SqlType::Numeric(modifier.map(|m| ((m >> 16) as u16, (m & 0xFFFF) as u16))),
            25 => SqlType::Text,
            1043 => SqlType::Varchar(modifier),
            // No modifier: `bpchar`, a char without a length.
            1042 => SqlType::Char(modifier.unwrap_or(0)),
            17 => SqlType::Bytea,
            16 => SqlType::Bool,
            1082 => SqlType::Date,
            1114 => SqlType::Timestamp(precision),
            1184 => SqlType::TimestampTz(precision),
            1083 => SqlType::Time(precision),
            1266 => SqlType::TimeTz(precision),
            2950 => SqlType::Uuid,
            1186 => SqlType::Interval(IntervalTypmod::from_typmod(typmod)),
            2249 => SqlType::Record,
            114 => SqlType::Json,
            3802 => SqlType::Jsonb,
            4072 => SqlType::JsonPath,
            26 => SqlType::Oid,
            18 => SqlType::InternalChar,
            19 => SqlType::Name,
            27 => SqlType::Tid,
            28 => SqlType::Xid,
            3220 => SqlType::PgLsn,
            790 => SqlType::Money,
            5069 => SqlType::Xid8,
            5038 => SqlType::PgSnapshot,
            2970 => SqlType::TxidSnapshot,
            869 => SqlType::Inet,
            650 => SqlType::Cidr,
            829 => SqlType::MacAddr,
            774 => SqlType::MacAddr8,
            1560 => SqlType::Bit(u32::try_from(typmod).ok().filter(|n| *n > 0)),
            1562 => SqlType::VarBit(u32::try_from(typmod).ok().filter(|n| *n > 0)),
            1790 => SqlType::Refcursor,
            3614 => SqlType::TsVector,
            3615 => SqlType::TsQuery,
            1014 => return SqlType::Char(modifier.unwrap_or(1)).array_keeping_modifier(),
            other => {
                if let Some(kind) = RangeKind::ALL.into_iter().find(|k| k.oid() == other) {
                    return Some(SqlType::Range(kind));
                }
                if let Some(kind) = RangeKind::ALL
                    .into_iter()
                    .find(|k| k.multirange_oid() == other)
                {
                    return Some(SqlType::Multirange(kind));
                }
                if let Some(kind) = GeoKind::from_oid(other) {
                    return Some(SqlType::Geo(kind));
                }
                if let Some(kind) = RegKind::of_oid(other) {
                    return Some(SqlType::Reg(kind));
                }
                let array = ELEMENTS
                    .iter()
                    .filter_map(|e| e.array_of())
                    .find(|a| a.oid() == other)?;
                return match (typmod, array) {
                    (-1, _) => Some(array),
                    (_, SqlType::Array(element)) => {
                        SqlType::from_oid(element.oid(), typmod)?.array_keeping_modifier()
                    }
                    _ => None,
                };
            }
        })
    }

    /// Whether it is a number type (integers, numeric, floats): the one
    /// owner of that category for the SQL layer's rules.
    pub fn is_number(self) -> bool {
        matches!(
            self,
            SqlType::Int2
                | SqlType::Int4
                | SqlType::Int8
                | SqlType::Numeric(_)
                | SqlType::Float4
                | SqlType::Float8
        )
    }

    /// The name PostgreSQL's `format_type` prints.
    pub fn name(self) -> String {
        match self {
            SqlType::Int2 => "smallint".into(),
            SqlType::Int4 => "integer".into(),
            SqlType::Int8 => "bigint".into(),
            SqlType::Float4 => "real".into(),
            SqlType::Float8 => "double precision".into(),
            SqlType::Numeric(None) => "numeric".into(),
            SqlType::Numeric(Some((p, s))) => format!("numeric({p},{s})"),
            SqlType::Text => "text".into(),
            SqlType::Varchar(None) => "character varying".into(),
            SqlType::Varchar(Some(n)) => format!("character varying({n})"),
            SqlType::Char(0) => "bpchar".into(),
            SqlType::Char(n) => format!("character({n})"),
            SqlType::Bytea => "bytea".into(),
            SqlType::Bool => "boolean".into(),
            SqlType::Date => "date".into(),
            SqlType::Timestamp(None) => "timestamp without time zone".into(),
            SqlType::Timestamp(Some(p)) => format!("timestamp({p}) without time zone"),
            SqlType::TimestampTz(None) => "timestamp with time zone".into(),
            SqlType::TimestampTz(Some(p)) => format!("timestamp({p}) with time zone"),
            SqlType::Time(None) => "time without time zone".into(),
            SqlType::Time(Some(p)) => format!("time({p}) without time zone"),
            SqlType::TimeTz(None) => "time with time zone".into(),
            SqlType::TimeTz(Some(p)) => format!("time({p}) with time zone"),
            SqlType::Uuid => "uuid".into(),
            SqlType::Interval(None) => "interval".into(),
            SqlType::Interval(Some(modifier)) => format!("interval{}", modifier.suffix()),
            SqlType::Array(element) => format!("{}[]", element.name()),
            SqlType::Record => "record".into(),
            SqlType::Json => "json".into(),
            SqlType::Jsonb => "jsonb".into(),
            SqlType::JsonPath => "jsonpath".into(),
            SqlType::Enum(def) => def.name.clone(),
            SqlType::Composite(def) => def.name.clone(),
            SqlType::Oid => "oid".into(),
            SqlType::InternalChar => "\"char\"".into(),
            SqlType::Name => "name".into(),
            SqlType::Tid => "tid".into(),
            SqlType::Xid => "xid".into(),
            SqlType::PgLsn => "pg_lsn".into(),
            SqlType::Money => "money".into(),
            SqlType::Xid8 => "xid8".into(),
            SqlType::PgSnapshot => "pg_snapshot".into(),
            SqlType::TxidSnapshot => "txid_snapshot".into(),
            SqlType::Inet => "inet".into(),
            SqlType::Cidr => "cidr".into(),
            SqlType::MacAddr => "macaddr".into(),
            SqlType::MacAddr8 => "macaddr8".into(),
            SqlType::Refcursor => "refcursor".into(),
            SqlType::Range(kind) => kind.name().into(),
            SqlType::Multirange(kind) => kind.multirange_name().into(),
            SqlType::Bit(None) => "bit".into(),
            SqlType::Bit(Some(n)) => format!("bit({n})"),
            SqlType::VarBit(None) => "bit varying".into(),
            SqlType::VarBit(Some(n)) => format!("bit varying({n})"),
            SqlType::Geo(kind) => kind.name().into(),
            SqlType::TsVector => "tsvector".into(),
            SqlType::TsQuery => "tsquery".into(),
            SqlType::Reg(kind) => kind.name().into(),
        }
    }

    /// Whether a column of this type may become of type `to` without any
    /// stored value changing (PostgreSQL's binary-coercible change, which
    /// its ALTER COLUMN TYPE does without a rewrite): every value of this
    /// type is stored (`row_format.rs`) and keyed (`key.rs`) as the equal
    /// value of `to`, and is within `to`'s length or precision. So the
    /// same type, text and varchar among themselves (a varchar whose
    /// length does not shrink, or none), a numeric of the same scale and
    /// no smaller precision, or none; not `char(n)` to another type (its
    /// blanks mean something else there), nor anything that converts.
    /// (PostgreSQL also keeps the rows of timestamp to timestamptz in a
    /// UTC session; whether their values are equal is the SQL layer's
    /// time zone's, so they are left out.)
    pub fn binary_coercible(self, to: SqlType) -> bool {
        match (self, to) {
            _ if self == to => true,
            (SqlType::Enum(from), SqlType::Enum(to)) => from.oid == to.oid,
            (SqlType::Text | SqlType::Varchar(_), SqlType::Text | SqlType::Varchar(None)) => true,
            (SqlType::Varchar(Some(from)), SqlType::Varchar(Some(to))) => to >= from,
            (SqlType::Numeric(_), SqlType::Numeric(None)) => true,
            (SqlType::Time(_), SqlType::Time(None)) => true,
            (SqlType::Time(Some(from)), SqlType::Time(Some(to))) => to >= from,
            (SqlType::TimeTz(_), SqlType::TimeTz(None)) => true,
            (SqlType::TimeTz(Some(from)), SqlType::TimeTz(Some(to))) => to >= from,
            (SqlType::Timestamp(_), SqlType::Timestamp(None)) => true,
            (SqlType::Timestamp(Some(from)), SqlType::Timestamp(Some(to))) => to >= from,
            (SqlType::TimestampTz(_), SqlType::TimestampTz(None)) => true,
            (SqlType::TimestampTz(Some(from)), SqlType::TimestampTz(Some(to))) => to >= from,
            (SqlType::Interval(_), SqlType::Interval(None)) => true,
            (SqlType::VarBit(_), SqlType::VarBit(None)) => true,
            (SqlType::VarBit(Some(from)), SqlType::VarBit(Some(to))) => to >= from,
            (SqlType::Numeric(Some((p, s))), SqlType::Numeric(Some((to_p, to_s)))) => {
                to_s == s && to_p >= p
            }
            _ => false,
        }
    }

    /// Whether an index key of this type decodes to the value stored:
    /// not for numerics (1.50 decodes as 1.5) nor intervals (`30 days`
    /// as `1 mon`), whose keys keep only what orders them. An index-only
    /// scan needs it of every column it returns.
    pub fn key_decodes_exactly(self) -> bool {
        match self {
            SqlType::Array(element) => element.key_decodes_exactly(),
            SqlType::Composite(def) => def.fields.iter().all(|(_, t)| t.key_decodes_exactly()),
            _ => !matches!(
                self,
                SqlType::Numeric(_)
                    | SqlType::Interval(_)
                    | SqlType::Range(RangeKind::Num)
                    | SqlType::Multirange(RangeKind::Num)
            ),
        }
    }

    /// Bytes of a value of this type in a row, if fixed.
    #[inline]
    pub(crate) fn fixed_width(self) -> Option<usize> {
        match self {
            SqlType::Int2 => Some(2),
            SqlType::Int4 | SqlType::Float4 | SqlType::Date | SqlType::Oid | SqlType::Reg(_) => {
                Some(4)
            }
            SqlType::Int8
            | SqlType::Float8
            | SqlType::Timestamp(_)
            | SqlType::TimestampTz(_)
            | SqlType::Time(_)
            | SqlType::Enum(_)
            | SqlType::Xid
            | SqlType::PgLsn
            | SqlType::Money
            | SqlType::Xid8
            | SqlType::MacAddr8 => Some(8),
            SqlType::MacAddr => Some(6),
            SqlType::Tid => Some(6),
            SqlType::Bool => Some(1),
            // A timetz: the time (8), then the zone (4).
            SqlType::TimeTz(_) => Some(12),
            SqlType::Uuid | SqlType::Interval(_) => Some(16),
            SqlType::Numeric(_) => Some(crate::numeric::NUMERIC_BYTES),
            SqlType::Text
            | SqlType::Varchar(_)
            | SqlType::Char(_)
            | SqlType::Bytea
            | SqlType::InternalChar
            | SqlType::Name
            | SqlType::Refcursor
            | SqlType::Inet
            | SqlType::Cidr
            | SqlType::Range(_)
            | SqlType::Multirange(_)
            | SqlType::Array(_)
            | SqlType::Record
            | SqlType::Composite(_)
            | SqlType::Json
            | SqlType::Jsonb
            | SqlType::JsonPath
            | SqlType::Bit(_)
            | SqlType::VarBit(_)
            | SqlType::Geo(_)
            | SqlType::TsVector
            | SqlType::TsQuery
            | SqlType::PgSnapshot
            | SqlType::TxidSnapshot => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves every type round-trips through its oid and modifier.
    #[test]
    fn types_round_trip_through_oid_and_typmod() {
        for t in [
            SqlType::Int2,
            SqlType::Int4,
            SqlType::Int8,
            SqlType::Float4,
            SqlType::Float8,
            SqlType::Numeric(None),
            SqlType::Numeric(Some((10, 2))),
            SqlType::Text,
            SqlType::Varchar(None),
            SqlType::Varchar(Some(20)),
            SqlType::Char(5),
            SqlType::Bytea,
            SqlType::Bool,
            SqlType::Date,
            SqlType::Timestamp(None),
            SqlType::Timestamp(Some(2)),
            SqlType::TimestampTz(None),
            SqlType::TimestampTz(Some(0)),
            SqlType::Time(None),
            SqlType::Time(Some(0)),
            SqlType::Time(Some(3)),
            SqlType::TimeTz(None),
            SqlType::TimeTz(Some(2)),
            SqlType::Uuid,
            SqlType::Interval(None),
            SqlType::Interval(IntervalTypmod::new(
                crate::interval_typmod::IntervalFields::DayToSecond,
                Some(2),
            )),
            SqlType::Record,
            SqlType::Json,
            SqlType::Jsonb,
            SqlType::Array(&SqlType::Json),
            SqlType::Array(&SqlType::Jsonb),
            SqlType::Oid,
            SqlType::InternalChar,
            SqlType::Tid,
            SqlType::Xid,
            SqlType::PgLsn,
            SqlType::Array(&SqlType::PgLsn),
            SqlType::Money,
            SqlType::Array(&SqlType::Money),
            SqlType::Xid8,
            SqlType::PgSnapshot,
            SqlType::Array(&SqlType::TxidSnapshot),
            SqlType::Inet,
            SqlType::Array(&SqlType::Cidr),
            SqlType::MacAddr,
            SqlType::Array(&SqlType::MacAddr8),
            SqlType::Bit(None),
            SqlType::Bit(Some(11)),
            SqlType::VarBit(None),
            SqlType::VarBit(Some(5)),
            SqlType::Array(&SqlType::VarBit(None)),
            SqlType::Geo(GeoKind::Point),
            SqlType::Geo(GeoKind::Polygon),
            SqlType::Array(&SqlType::Geo(GeoKind::Circle)),
            SqlType::Refcursor,
            SqlType::Name,
            SqlType::Array(&SqlType::Name),
            SqlType::Array(&SqlType::InternalChar),
            SqlType::Range(RangeKind::Int4),
            SqlType::Range(RangeKind::Tstz),
            SqlType::Array(&SqlType::Range(RangeKind::Date)),
        ] {
            assert_eq!(
                SqlType::from_oid(t.oid(), t.typmod()),
                Some(t),
                "{}",
                t.name()
            );
        }
        assert_eq!(SqlType::Varchar(Some(10)).name(), "character varying(10)");
        assert_eq!(
            SqlType::Timestamp(Some(2)).name(),
            "timestamp(2) without time zone"
        );
        assert_eq!(SqlType::Timestamp(Some(2)).array_of().unwrap().oid(), 1115);
        for element in ELEMENTS {
            let array = element.array_of().unwrap();
            assert_eq!(SqlType::from_oid(array.oid(), -1), Some(array));
            assert_eq!(array.element(), Some(element));
        }
        assert_eq!(SqlType::Int2.array_of().unwrap().name(), "smallint[]");
        assert_eq!(SqlType::Text.array_of().unwrap().oid(), 1009);
        assert_eq!(SqlType::Char(3).array_of(), None);
        // A column's array keeps its elements' modifier, through its oid
        // and typmod too.
        for element in [
            SqlType::Char(5),
            SqlType::Varchar(Some(5)),
            SqlType::Numeric(Some((5, 2))),
            SqlType::Timestamp(Some(2)),
            SqlType::Bit(Some(4)),
        ] {
            let array = element.array_keeping_modifier().unwrap();
            assert_eq!(array.element(), Some(element));
            assert_eq!(SqlType::from_oid(array.oid(), array.typmod()), Some(array));
            assert_eq!(element.array_keeping_modifier(), Some(array));
        }
        assert_eq!(
            SqlType::Char(5).array_keeping_modifier().unwrap().oid(),
            1014
        );
        assert_eq!(
            SqlType::Int4.array_keeping_modifier(),
            SqlType::Int4.array_of()
        );
    }

    // Proves the changes PostgreSQL 15 makes without a rewrite (each pair
    // checked by its relfilenode before and after ALTER COLUMN TYPE) are
    // binary-coercible here, and those it rewrites are not (nor
    // timestamp to timestamptz, left out).
    #[test]
    fn binary_coercible_changes_are_postgresql_s_no_rewrite_ones() {
        use SqlType::*;
        for (from, to) in [
            (Varchar(Some(10)), Varchar(Some(20))),
            (Varchar(Some(10)), Text),
            (Varchar(Some(10)), Varchar(None)),
            (Text, Varchar(None)),
            (Varchar(None), Text),
            (Numeric(Some((10, 2))), Numeric(Some((12, 2)))),
            (Numeric(Some((10, 2))), Numeric(None)),
            (Char(10), Char(10)),
            (Int4, Int4),
            (Timestamp(Some(2)), Timestamp(None)),
            (TimestampTz(Some(2)), TimestampTz(Some(3))),
        ] {
            assert!(
                from.binary_coercible(to),
                "{} to {}",
                from.name(),
                to.name()
            );
        }
        for (from, to) in [
            (Varchar(Some(10)), Varchar(Some(5))),
            (Text, Varchar(Some(3))),
            (Numeric(Some((10, 2))), Numeric(Some((12, 3)))),
            (Numeric(Some((10, 2))), Numeric(Some((8, 2)))),
            (Numeric(None), Numeric(Some((12, 3)))),
            (Char(5), Char(10)),
            (Char(5), Text),
            (Varchar(Some(5)), Char(10)),
            (Int4, Int8),
            (Timestamp(None), TimestampTz(None)),
            (Timestamp(Some(3)), Timestamp(Some(2))),
            (Timestamp(None), Timestamp(Some(2))),
        ] {
            assert!(
                !from.binary_coercible(to),
                "{} to {}",
                from.name(),
                to.name()
            );
        }
    }
}
