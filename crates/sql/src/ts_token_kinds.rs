//! The default text search parser's token types (PostgreSQL 15's
//! `ts_token_type('default')`): each kind's id, alias and description,
//! the one catalogue `ts_token_type`, `ts_parse` and `ts_debug` show and
//! configurations map (`ts_config.rs`).

/// A token kind; its discriminant is PostgreSQL's token id.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TokenKind {
    AsciiWord = 1,
    Word = 2,
    NumWord = 3,
    Email = 4,
    Url = 5,
    Host = 6,
    SFloat = 7,
    Version = 8,
    HWordNumPart = 9,
    HWordPart = 10,
    HWordAsciiPart = 11,
    Blank = 12,
    Tag = 13,
    Protocol = 14,
    NumHWord = 15,
    AsciiHWord = 16,
    HWord = 17,
    UrlPath = 18,
    File = 19,
    Float = 20,
    Int = 21,
    UInt = 22,
    Entity = 23,
}

/// Every kind, by id.
pub(crate) const ALL: [TokenKind; 23] = {
    use TokenKind::*;
    [
        AsciiWord,
        Word,
        NumWord,
        Email,
        Url,
        Host,
        SFloat,
        Version,
        HWordNumPart,
        HWordPart,
        HWordAsciiPart,
        Blank,
        Tag,
        Protocol,
        NumHWord,
        AsciiHWord,
        HWord,
        UrlPath,
        File,
        Float,
        Int,
        UInt,
        Entity,
    ]
};

/// The default parser's oid (`pg_ts_parser`), which `ts_token_type` and
/// `ts_parse` also take for its name.
pub(crate) const DEFAULT_PARSER_OID: i64 = 3722;

impl TokenKind {
    /// PostgreSQL's token id.
    pub(crate) fn id(self) -> i32 {
        self as i32
    }

    /// PostgreSQL's alias (a configuration's mapping names kinds by it).
    pub(crate) fn alias(self) -> &'static str {
        use TokenKind::*;
        match self {
            AsciiWord => "asciiword",
            Word => "word",
            NumWord => "numword",
            Email => "email",
            Url => "url",
            Host => "host",
            SFloat => "sfloat",
            Version => "version",
            HWordNumPart => "hword_numpart",
            HWordPart => "hword_part",
            HWordAsciiPart => "hword_asciipart",
            Blank => "blank",
            Tag => "tag",
            Protocol => "protocol",
            NumHWord => "numhword",
            AsciiHWord => "asciihword",
            HWord => "hword",
            UrlPath => "url_path",
            File => "file",
            Float => "float",
            Int => "int",
            UInt => "uint",
            Entity => "entity",
        }
    }

    /// PostgreSQL's description.
    pub(crate) fn description(self) -> &'static str {
        use TokenKind::*;
        match self {
            AsciiWord => "Word, all ASCII",
            Word => "Word, all letters",
            NumWord => "Word, letters and digits",
            Email => "Email address",
            Url => "URL",
            Host => "Host",
            SFloat => "Scientific notation",
            Version => "Version number",
            HWordNumPart => "Hyphenated word part, letters and digits",
            HWordPart => "Hyphenated word part, all letters",
            HWordAsciiPart => "Hyphenated word part, all ASCII",
            Blank => "Space symbols",
            Tag => "XML tag",
            Protocol => "Protocol head",
            NumHWord => "Hyphenated word, letters and digits",
            AsciiHWord => "Hyphenated word, all ASCII",
            HWord => "Hyphenated word, all letters",
            UrlPath => "URL path",
            File => "File or path name",
            Float => "Decimal notation",
            Int => "Signed integer",
            UInt => "Unsigned integer",
            Entity => "XML entity",
        }
    }

    /// Whether the token is made of letters only (a word a stemmer takes).
    pub(crate) fn is_letters(self) -> bool {
        use TokenKind::*;
        matches!(
            self,
            AsciiWord | Word | AsciiHWord | HWord | HWordAsciiPart | HWordPart
        )
    }

    /// Whether no configuration indexes the kind (blanks, tags, protocol
    /// heads and entities have no dictionary: they take no position).
    pub(crate) fn is_unindexed(self) -> bool {
        use TokenKind::*;
        matches!(self, Blank | Tag | Protocol | Entity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the catalogue lists the 23 kinds in id order, as PostgreSQL's
    // `ts_token_type('default')`.
    #[test]
    fn ids_in_order() {
        for (i, kind) in ALL.iter().enumerate() {
            assert_eq!(kind.id(), i as i32 + 1);
        }
        assert_eq!(TokenKind::Entity.alias(), "entity");
        assert_eq!(TokenKind::Blank.description(), "Space symbols");
    }
}
