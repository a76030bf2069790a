//! Letter case as PostgreSQL's `upper`, `lower` and `initcap` change it
//! under a UTF-8 libc locale (`C.UTF-8`, the locale folio reports): one
//! character for one, by `towupper` / `towlower`, which follow Unicode's
//! simple mappings. Rust's `str::to_uppercase` follows the full ones, so
//! `ß` became `SS`, and its `to_lowercase` turns a final `Σ` into `ς`;
//! PostgreSQL gives `ß` and `σ`.
//!
//! The simple mapping is taken from the full one: a character whose full
//! upper case is one character maps to it, else it stays (`ß`, `ŉ`, the
//! ligatures); a lower case keeps the full mapping's first character
//! (`İ` → `i`). Known difference: the Greek letters with ypogegrammeni
//! (`ᾳ`) stay, where Unicode's simple mapping gives their title-case form.

/// `c` in upper case.
pub fn upper_char(c: char) -> char {
    let mut full = c.to_uppercase();
    match (full.next(), full.next()) {
        (Some(u), None) => u,
        _ => c,
    }
}

/// `c` in lower case.
pub fn lower_char(c: char) -> char {
    c.to_lowercase().next().unwrap_or(c)
}

/// `upper(text)`.
pub fn upper(s: &str) -> String {
    s.chars().map(upper_char).collect()
}

/// `lower(text)`.
pub fn lower(s: &str) -> String {
    s.chars().map(lower_char).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves the mappings are one character for one, as PostgreSQL's
    // under C.UTF-8: `ß` and ligatures stay, `İ` lowers to `i`, a final
    // sigma is `σ`.
    #[test]
    fn one_character_for_one() {
        assert_eq!(upper("straße ǆ ıx ﬀ"), "STRAßE Ǆ IX ﬀ");
        assert_eq!(lower("İI ΑΣ ÀÉ"), "ii ασ àé");
        assert_eq!(upper("héllo"), "HÉLLO");
    }
}
