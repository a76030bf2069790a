//! The text form of arrays, as PostgreSQL's `array_out` and `array_in`
//! write and read it: `{1,2,NULL}`, `{"a b","",x}`, `{{1,2},{3,4}}`,
//! `[0:1]={7,8}` (the bounds first, `[lower:upper]` per dimension, when
//! any lower bound is not 1).
//! An element is quoted when it is empty, is `NULL` in any case, or holds
//! a brace, a comma, a quote, a backslash or white space; inside quotes
//! `"` and `\` are escaped with a backslash. Input reads the same forms
//! (an unquoted `NULL` is a NULL element; `[u]` is `[1:u]`); every
//! sub-array of one level must have as many elements, and only the
//! deepest level holds elements. Elements are separated by their type's
//! delimiter: a comma, but for box's `;` (`GeoKind::array_delimiter`).

use crate::array::{Array, Dim, MAX_DIMS, too_many_dims};
use crate::datetime_fields::DateOrder;
use crate::error::RowError;
use crate::text_style::TextStyle;
use crate::time_zone::TimeZone;
use crate::types::SqlType;
use crate::value::Value;

/// The text of an array.
pub(crate) fn array_out(array: &Array, style: &TextStyle) -> String {
    let delimiter = array
        .items()
        .iter()
        .find_map(|v| match v {
            Value::Geo(g) => Some(g.kind().array_delimiter()),
            _ => None,
        })
        .unwrap_or(',');
    let dims = array.dims();
    let mut out = String::new();
    if dims.iter().any(|d| d.lower != 1) {
        for d in &dims {
            out.push_str(&format!("[{}:{}]", d.lower, d.upper()));
        }
        out.push('=');
    }
    if dims.is_empty() {
        out.push_str("{}");
        return out;
    }
    // How many elements each level's sub-array holds, innermost last.
    let mut strides = vec![1usize; dims.len()];
    for d in (0..dims.len() - 1).rev() {
        strides[d] = strides[d + 1] * dims[d + 1].len as usize;
    }
    for (n, item) in array.items().iter().enumerate() {
        // The levels whose sub-array ends before element `n` (and so
        // begins at it): always the innermost.
        let boundaries = strides.iter().filter(|s| n % **s == 0).count();
        if n > 0 {
            (1..boundaries).for_each(|_| out.push('}'));
            out.push(delimiter);
            (1..boundaries).for_each(|_| out.push('{'));
        } else {
            (0..boundaries).for_each(|_| out.push('{'));
        }
        element_out(item, style, delimiter, &mut out);
    }
    (0..dims.len()).for_each(|_| out.push('}'));
    out
}

/// One element's text, quoted when it must be.
fn element_out(item: &Value, style: &TextStyle, delimiter: char, out: &mut String) {
    let Some(text) = item.to_text_styled(style) else {
        out.push_str("NULL");
        return;
    };
    let quote = text.is_empty()
        || text.eq_ignore_ascii_case("null")
        || text
            .chars()
            .any(|c| matches!(c, '{' | '}' | '"' | '\\') || c == delimiter || is_space(c));
    if !quote {
        out.push_str(&text);
        return;
    }
    out.push('"');
    for c in text.chars() {
        if c == '"' || c == '\\' {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('"');
}

/// PostgreSQL's white space in array literals.
pub(crate) fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\x0b' | '\x0c')
}

/// An array of `element` values read from `text`.
pub(crate) fn array_in(
    element: SqlType,
    text: &str,
    zone: &TimeZone,
    order: DateOrder,
) -> Result<Value, RowError> {
    let mut reader = Reader {
        text,
        chars: text.chars().collect(),
        at: 0,
        lens: Vec::new(),
        counts: Vec::new(),
        ndims: None,
        items: Vec::new(),
        delimiter: match element {
            SqlType::Geo(kind) => kind.array_delimiter(),
            _ => ',',
        },
    };
    reader.skip_space();
    let declared = reader.bounds()?;
    if reader.peek() != Some('{') {
        return Err(reader.malformed("Array value must start with \"{\" or dimension information."));
    }
    reader.at += 1;
    reader.sub_array(0)?;
    reader.skip_space();
    if reader.peek().is_some() {
        return Err(reader.malformed("Junk after closing right brace."));
    }
    let lens: Vec<u32> = reader.lens.iter().flatten().copied().collect();
    let dims = match declared {
        Some(dims) => {
            let fits = dims.len() == lens.len() && dims.iter().zip(&lens).all(|(d, l)| d.len == *l);
            if !fits {
                return Err(
                    reader.malformed("Specified array dimensions do not match array contents.")
                );
            }
            dims
        }
        None => lens
            .iter()
            .map(|len| Dim {
                lower: 1,
                len: *len,
            })
            .collect(),
    };
    let items = (reader.items.into_iter())
        .map(
            |(quoted, item)| match (quoted, item.eq_ignore_ascii_case("null")) {
                (false, true) => Ok(Value::Null),
                _ => Value::from_text_in(element, &item, zone, order),
            },
        )
        .collect::<Result<_, _>>()?;
    Ok(Value::Array(Array::new(dims, items)?))
}

/// The state of reading an array's text.
struct Reader<'a> {
    text: &'a str,
    chars: Vec<char>,
    at: usize,
    /// Each level's length, once its first sub-array has closed.
    lens: Vec<Option<u32>>,
    /// The elements or sub-arrays read so far in each open level.
    counts: Vec<u32>,
    /// The depth of the elements, once one has been read.
    ndims: Option<usize>,
    /// Each element's text and whether it was quoted.
    items: Vec<(bool, String)>,
    /// The element type's delimiter (module doc).
    delimiter: char,
}

impl Reader<'_> {
    fn malformed(&self, detail: &str) -> RowError {
        RowError::MalformedArray {
            text: self.text.to_string(),
            detail: detail.to_string(),
        }
    }

    fn unexpected(&self, c: char) -> RowError {
        self.malformed(&format!("Unexpected \"{c}\" character."))
    }

    fn peek(&self) -> Option<char> {
        self.chars.get(self.at).copied()
    }

    fn skip_space(&mut self) {
        while self.peek().is_some_and(is_space) {
            self.at += 1;
        }
    }

    /// The `[l:u]...=` prefix, if there is one.
    fn bounds(&mut self) -> Result<Option<Vec<Dim>>, RowError> {
        if self.peek() != Some('[') {
            return Ok(None);
        }
        let mut dims = Vec::new();
        while self.peek() == Some('[') {
            self.at += 1;
            if dims.len() == MAX_DIMS {
                return Err(too_many_dims(MAX_DIMS + 1));
            }
            let Some(first) = self.integer() else {
                return Err(
                    self.malformed("\"[\" must introduce explicitly-specified array dimensions.")
                );
            };
            let (lower, upper) = if self.peek() == Some(':') {
                self.at += 1;
                match self.integer() {
                    Some(upper) => (first, upper),
                    None => return Err(self.malformed("Missing array dimension value.")),
                }
            } else {
                (1, first)
            };
            if self.peek() != Some(']') {
                return Err(self.malformed("Missing \"]\" after array dimensions."));
            }
            self.at += 1;
            if upper < lower {
                return Err(RowError::ArrayShape(
                    "upper bound cannot be less than lower bound".into(),
                ));
            }
            let (Ok(lower), Ok(len)) = (i32::try_from(lower), u32::try_from(upper - lower + 1))
            else {
                return Err(RowError::ArrayLimit(format!(
                    "array lower bound is too large: {lower}"
                )));
            };
            dims.push(Dim { lower, len });
        }
        self.skip_space();
        if self.peek() != Some('=') {
            return Err(self.malformed("Missing \"=\" after array dimensions."));
        }
        self.at += 1;
        self.skip_space();
        Ok(Some(dims))
    }

    /// An optionally signed decimal integer.
    fn integer(&mut self) -> Option<i64> {
        let start = self.at;
        if matches!(self.peek(), Some('+' | '-')) {
            self.at += 1;
        }
        while self.peek().is_some_and(|c| c.is_ascii_digit()) {
            self.at += 1;
        }
        let digits: String = self.chars[start..self.at].iter().collect();
        let value = digits.parse::<i64>().ok();
        if value.is_none() {
            self.at = start;
        }
        value
    }

    /// The sub-array of nesting `level` (from 0) whose `{` was just read,
    /// through its `}`.
    fn sub_array(&mut self, level: usize) -> Result<(), RowError> {
        if level == MAX_DIMS {
            return Err(too_many_dims(MAX_DIMS + 1));
        }
        self.counts.truncate(level);
        self.counts.push(0);
        self.skip_space();
        if level == 0 && self.peek() == Some('}') {
            self.at += 1;
            return self.close(level);
        }
        loop {
            self.skip_space();
            match self.peek() {
                Some('{') => {
                    if self.ndims.is_some_and(|n| level + 1 >= n) {
                        return Err(self.unexpected('{'));
                    }
                    self.at += 1;
                    self.sub_array(level + 1)?;
                }
                Some(c) if c == '}' || c == self.delimiter => return Err(self.unexpected(c)),
                None => return Err(self.malformed("Unexpected end of input.")),
                Some(_) => {
                    match self.ndims {
                        Some(n) if n != level + 1 => {
                            return Err(self.malformed("Unexpected array element."));
                        }
                        _ => self.ndims = Some(level + 1),
                    }
                    self.element()?;
                }
            }
            self.counts[level] += 1;
            self.skip_space();
            match self.peek() {
                Some(c) if c == self.delimiter => self.at += 1,
                Some('}') => {
                    self.at += 1;
                    return self.close(level);
                }
                Some(c) => return Err(self.unexpected(c)),
                None => return Err(self.malformed("Unexpected end of input.")),
            }
        }
    }

    /// Checks a closed sub-array's length against its level's.
    fn close(&mut self, level: usize) -> Result<(), RowError> {
        let count = self.counts[level];
        if count == 0 {
            return Ok(());
        }
        if self.lens.len() <= level {
            self.lens.resize(level + 1, None);
        }
        match self.lens[level] {
            Some(len) if len != count => Err(self.malformed(
                "Multidimensional arrays must have sub-arrays with matching dimensions.",
            )),
            Some(_) => Ok(()),
            None => {
                self.lens[level] = Some(count);
                Ok(())
            }
        }
    }

    /// One element, quoted or not, up to the `,` or `}` after it.
    fn element(&mut self) -> Result<(), RowError> {
        let mut item = String::new();
        if self.peek() == Some('"') {
            self.at += 1;
            loop {
                let c = self.peek();
                self.at += 1;
                match c {
                    Some('"') => break,
                    Some('\\') => {
                        let escaped = self.peek();
                        self.at += 1;
                        item.push(
                            escaped.ok_or_else(|| self.malformed("Unexpected end of input."))?,
                        );
                    }
                    Some(c) => item.push(c),
                    None => return Err(self.malformed("Unexpected end of input.")),
                }
            }
            self.items.push((true, item));
            return Ok(());
        }
        while let Some(c) = self.peek() {
            match c {
                c if c == '}' || c == self.delimiter => break,
                '{' | '"' => return Err(self.unexpected(c)),
                '\\' => {
                    self.at += 1;
                    let escaped = self.peek();
                    item.push(escaped.ok_or_else(|| self.malformed("Unexpected end of input."))?);
                }
                c => item.push(c),
            }
            self.at += 1;
        }
        item.truncate(item.trim_end_matches(is_space).len());
        self.items.push((false, item));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves box arrays use box's `;` delimiter both ways, and a box's
    // commas need no quotes, as PostgreSQL's `array_out` writes them.
    #[test]
    fn box_arrays_are_delimited_by_semicolons() {
        let ty = SqlType::Geo(crate::geometry::GeoKind::Box);
        let v = array_in(
            ty,
            "{(1,2),(3,4);(0,0),(1,1)}",
            &TimeZone::UTC,
            DateOrder::Mdy,
        )
        .unwrap();
        assert_eq!(v.to_text().unwrap(), "{(3,4),(1,2);(1,1),(0,0)}");
        let points = array_in(
            SqlType::Geo(crate::geometry::GeoKind::Point),
            r#"{"(1,2)","(3,4)"}"#,
            &TimeZone::UTC,
            DateOrder::Mdy,
        )
        .unwrap();
        assert_eq!(points.to_text().unwrap(), r#"{"(1,2)","(3,4)"}"#);
    }

    #[test]
    fn arrays_print_and_read_as_postgresql_does() {
        let texts = Value::Array(Array::from_items(vec![
            Value::Text("a".into()),
            Value::Text("b c".into()),
            Value::Text(String::new()),
            Value::Null,
            Value::Text("null".into()),
            Value::Text("x\"y\\z".into()),
        ]));
        let printed = texts.to_text().unwrap();
        assert_eq!(printed, r#"{a,"b c","",NULL,"null","x\"y\\z"}"#);
        assert_eq!(
            array_in(SqlType::Text, &printed, &TimeZone::UTC, DateOrder::Mdy).unwrap(),
            texts
        );
        assert_eq!(
            array_in(
                SqlType::Int4,
                " { 1 , 2,NULL } ",
                &TimeZone::UTC,
                DateOrder::Mdy
            )
            .unwrap(),
            Value::Array(Array::from_items(vec![
                Value::Int4(1),
                Value::Int4(2),
                Value::Null
            ]))
        );
        assert_eq!(
            array_in(SqlType::Int8, "{}", &TimeZone::UTC, DateOrder::Mdy).unwrap(),
            Value::Array(Array::default())
        );
        assert_eq!(Value::Array(Array::default()).to_text().unwrap(), "{}");
        for bad in [
            "1,2",
            "{1,,2}",
            "{{1},2}",
            "{1",
            "[0:1]={1}",
            "{a}",
            "{{1,2},{3}}",
        ] {
            assert!(
                array_in(SqlType::Int4, bad, &TimeZone::UTC, DateOrder::Mdy).is_err(),
                "{bad}"
            );
        }
    }
}

#[cfg(test)]
mod shape_tests {
    use super::*;

    fn read(text: &str) -> Result<Value, RowError> {
        array_in(SqlType::Int4, text, &TimeZone::UTC, DateOrder::Mdy)
    }

    #[test]
    fn dimensions_and_bounds_read_and_print_back() {
        // Proves the text of several dimensions and of lower bounds other
        // than 1 reads to the shape it says and prints as PostgreSQL's.
        for (text, printed) in [
            ("{{1,2,3},{4,5,6}}", "{{1,2,3},{4,5,6}}"),
            (" [0:1] = { 7 , 8 } ", "[0:1]={7,8}"),
            ("[2]={1,2}", "{1,2}"),
            ("[0:1][1:2]={{1,2},{3,NULL}}", "[0:1][1:2]={{1,2},{3,NULL}}"),
            ("{{{1}},{{2}}}", "{{{1}},{{2}}}"),
            ("[-3:-2]={1,2}", "[-3:-2]={1,2}"),
        ] {
            let value = read(text).unwrap();
            assert_eq!(value.to_text().unwrap(), printed, "{text}");
            assert_eq!(read(printed).unwrap(), value);
        }
        let Value::Array(a) = read("[0:1][1:3]={{1,2,3},{4,5,6}}").unwrap() else {
            panic!("an array")
        };
        a.check_invariants();
        assert_eq!(
            a.dims(),
            vec![Dim { lower: 0, len: 2 }, Dim { lower: 1, len: 3 }]
        );
    }

    #[test]
    fn malformed_shapes_say_why() {
        // Proves each malformed shape is refused with PostgreSQL's DETAIL
        // or error.
        for (text, detail) in [
            (
                "{{1,2},{3}}",
                "Multidimensional arrays must have sub-arrays with matching dimensions.",
            ),
            ("{{1},2}", "Unexpected array element."),
            ("{1,{2}}", "Unexpected \"{\" character."),
            ("{{}}", "Unexpected \"}\" character."),
            (
                "[1:2]={1}",
                "Specified array dimensions do not match array contents.",
            ),
            ("[1:2]{1,2}", "Missing \"=\" after array dimensions."),
            (
                "[a:2]={1,2}",
                "\"[\" must introduce explicitly-specified array dimensions.",
            ),
            ("[1:]={1}", "Missing array dimension value."),
            ("{{1},{2}} x", "Junk after closing right brace."),
        ] {
            let e = read(text).unwrap_err();
            assert_eq!(e.detail().as_deref(), Some(detail), "{text}");
        }
        assert_eq!(read("[1:0]={}").unwrap_err().sqlstate(), "2202E");
        assert_eq!(read("{{{{{{{1}}}}}}}").unwrap_err().sqlstate(), "54000");
    }
}
