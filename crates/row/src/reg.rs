//! The OID alias types (`regclass`, `regtype`, `regproc`, ...:
//! PostgreSQL's `reg*` types, `SqlType::Reg`, `Value::Reg`): an oid that
//! prints as the name of the object it identifies. A value carries the
//! oid and the name it prints as, which the SQL layer resolved from the
//! catalog when it made the value (`reg_types.rs`, the one owner of the
//! names both ways); this crate only orders it (by the oid), prints it
//! (the name) and writes it (the oid: 4 bytes, as an `oid`'s).

/// Which objects a `reg*` type names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RegKind {
    Class,
    Type,
    Proc,
    Procedure,
    Oper,
    Operator,
    Namespace,
    Role,
    Config,
    Dictionary,
    Collation,
}

/// Each kind, its type's name, oid and array type's oid (PostgreSQL's).
const KINDS: [(RegKind, &str, u32, u32); 11] = [
    (RegKind::Class, "regclass", 2205, 2210),
    (RegKind::Type, "regtype", 2206, 2211),
    (RegKind::Proc, "regproc", 24, 1008),
    (RegKind::Procedure, "regprocedure", 2202, 2207),
    (RegKind::Oper, "regoper", 2203, 2208),
    (RegKind::Operator, "regoperator", 2204, 2209),
    (RegKind::Namespace, "regnamespace", 4089, 4090),
    (RegKind::Role, "regrole", 4096, 4097),
    (RegKind::Config, "regconfig", 3734, 3735),
    (RegKind::Dictionary, "regdictionary", 3769, 3770),
    (RegKind::Collation, "regcollation", 4191, 4192),
];

impl RegKind {
    fn row(self) -> &'static (RegKind, &'static str, u32, u32) {
        KINDS
            .iter()
            .find(|k| k.0 == self)
            .expect("every kind listed")
    }

    /// The type's name (`regclass`).
    pub fn name(self) -> &'static str {
        self.row().1
    }

    /// The type's oid.
    pub fn oid(self) -> u32 {
        self.row().2
    }

    /// The oid of its array type (`_regclass`).
    pub fn array_oid(self) -> u32 {
        self.row().3
    }

    /// The kind whose type is named `name` (bare, lower case).
    pub fn of_name(name: &str) -> Option<RegKind> {
        KINDS.iter().find(|k| k.1 == name).map(|k| k.0)
    }

    /// The kind whose type has oid `oid`.
    pub fn of_oid(oid: u32) -> Option<RegKind> {
        KINDS.iter().find(|k| k.2 == oid).map(|k| k.0)
    }
}

/// A `reg*` value: its kind, the object's oid and the name it prints as
/// (the oid's digits for none, `-` for 0 as most kinds print it).
#[derive(Debug, Clone, PartialEq)]
pub struct RegValue {
    pub kind: RegKind,
    pub oid: u32,
    pub name: String,
}

impl RegValue {
    /// A value whose name is not known here: its oid's digits (`-` for
    /// 0 but for `regoper` and `regoperator`, which print 0).
    pub fn unnamed(kind: RegKind, oid: u32) -> RegValue {
        let name = match (oid, kind) {
            (0, RegKind::Oper | RegKind::Operator) => "0".into(),
            (0, _) => "-".into(),
            (oid, _) => oid.to_string(),
        };
        RegValue { kind, oid, name }
    }
}
