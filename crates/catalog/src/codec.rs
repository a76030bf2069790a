//! The byte encoding of catalog rows: fields one after another,
//! little-endian, strings and lists with a u16 length. Decoding untrusted
//! bytes returns an error for anything short or malformed, never panics.

/// Appends fields to a row.
#[derive(Debug, Default)]
pub(crate) struct Writer(pub(crate) Vec<u8>);

impl Writer {
    pub(crate) fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    pub(crate) fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn i32(&mut self, v: i32) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub(crate) fn str(&mut self, v: &str) -> &mut Self {
        self.u16(v.len() as u16);
        self.0.extend_from_slice(v.as_bytes());
        self
    }
}

/// Reads fields back, in the order written.
#[derive(Debug)]
pub(crate) struct Reader<'a>(pub(crate) &'a [u8]);

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        if self.0.len() < n {
            return Err(format!(
                "catalog row cut short: {} bytes left, {n} needed",
                self.0.len()
            ));
        }
        let (head, tail) = self.0.split_at(n);
        self.0 = tail;
        Ok(head)
    }
    pub(crate) fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }
    pub(crate) fn u16(&mut self) -> Result<u16, String> {
        Ok(u16::from_le_bytes(self.take(2)?.try_into().expect("2")))
    }
    pub(crate) fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    pub(crate) fn i32(&mut self) -> Result<i32, String> {
        Ok(i32::from_le_bytes(self.take(4)?.try_into().expect("4")))
    }
    pub(crate) fn u64(&mut self) -> Result<u64, String> {
        Ok(u64::from_le_bytes(self.take(8)?.try_into().expect("8")))
    }
    pub(crate) fn str(&mut self) -> Result<String, String> {
        let len = self.u16()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).map_err(|_| "a name is not UTF-8".to_string())
    }
    pub(crate) fn end(&self) -> Result<(), String> {
        if self.0.is_empty() {
            Ok(())
        } else {
            Err(format!("{} bytes after the catalog row", self.0.len()))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // Proves fields round-trip and a short or overlong row is an error.
    #[test]
    fn fields_round_trip_and_bad_rows_are_refused() {
        let mut w = Writer::default();
        w.u8(1).u16(2).u32(3).i32(-4).u64(5).str("name");
        let mut r = Reader(&w.0);
        assert_eq!(r.u8(), Ok(1));
        assert_eq!(r.u16(), Ok(2));
        assert_eq!(r.u32(), Ok(3));
        assert_eq!(r.i32(), Ok(-4));
        assert_eq!(r.u64(), Ok(5));
        assert_eq!(r.str().as_deref(), Ok("name"));
        r.end().unwrap();
        assert!(Reader(&w.0[..w.0.len() - 1]).u8().is_ok());
        let mut short = Reader(&w.0[..w.0.len() - 1]);
        let _ = (
            short.u8(),
            short.u16(),
            short.u32(),
            short.i32(),
            short.u64(),
        );
        assert!(short.str().is_err());
        let mut long = Reader(&w.0);
        long.u8().unwrap();
        assert!(long.end().is_err());
    }
}
