//! ANALYZE's statistics kept across restarts (`table_statistics` in the
//! data directory), as PostgreSQL keeps them in `pg_statistic`.
//!
//! Without it a restart forgot every table's statistics and the planner
//! went back to its rules until the next ANALYZE. Like autovacuum's counts
//! (`activity_file.rs`) the file is a hint (`hint_file.rs`): written
//! whole after each ANALYZE; read at open, where anything unreadable (a
//! crash's torn or empty file, another format) loads nothing and the
//! planner decides by its rules, as before.
//!
//! Layout, little-endian: the header line, then per table its oid (u64),
//! pages (u64), rows (f64) and column count (u16); per column its type
//! (oid u32, typmod i32), null fraction, distinct values and correlation
//! (f64 each), its average width (u32), then the most common values and the histogram bounds, each
//! a count (u16) and a row of that many values of the column's type in
//! folio-row's row format (length u32 before it); the MCV frequencies
//! (f64 each) follow their values.

use crate::catalog::Catalog;
use crate::hint_file::{read_hint, write_hint};
use crate::statistics::{ColumnStats, TableStats};
use folio_io::Dir;
use folio_row::{SqlType, Value, decode_row, encode_row};
use std::io;

/// The file's name in the data directory.
pub const STATISTICS_FILE: &str = "table_statistics";
/// The format's name and version.
const HEADER: &[u8] = b"folio table statistics 2\n";

/// Writes every table's statistics the catalog holds to
/// [`STATISTICS_FILE`] in `dir`.
pub fn save_statistics(catalog: &Catalog, dir: &dyn Dir) -> io::Result<()> {
    let mut tables = catalog.all_statistics();
    tables.sort_unstable_by_key(|(oid, _)| *oid);
    let mut out = HEADER.to_vec();
    for (oid, stats) in &tables {
        encode_table(*oid, stats, &mut out).map_err(io::Error::other)?;
    }
    write_hint(dir, STATISTICS_FILE, &out)
}

/// Loads what [`save_statistics`] wrote into the catalog's slots; how many
/// tables it loaded (none from a file it cannot read whole).
pub fn load_statistics(catalog: &Catalog, dir: &dyn Dir) -> io::Result<usize> {
    let Some(bytes) = read_hint(dir, STATISTICS_FILE)? else {
        return Ok(0);
    };
    let tables = decode(&bytes).unwrap_or_default();
    for (oid, stats) in &tables {
        catalog.statistics_slot(*oid).set(stats.clone());
    }
    Ok(tables.len())
}

fn encode_table(oid: u64, stats: &TableStats, out: &mut Vec<u8>) -> Result<(), String> {
    out.extend_from_slice(&oid.to_le_bytes());
    out.extend_from_slice(&stats.pages.to_le_bytes());
    out.extend_from_slice(&stats.rows.to_le_bytes());
    out.extend_from_slice(&(stats.columns.len() as u16).to_le_bytes());
    for (ty, column) in stats.types.iter().zip(&stats.columns) {
        out.extend_from_slice(&ty.oid().to_le_bytes());
        out.extend_from_slice(&ty.typmod().to_le_bytes());
        for x in [column.null_frac, column.n_distinct, column.correlation] {
            out.extend_from_slice(&x.to_le_bytes());
        }
        out.extend_from_slice(&column.avg_width.to_le_bytes());
        let (mcv, freqs): (Vec<Value>, Vec<f64>) = column.mcv.iter().cloned().unzip();
        encode_values(&mcv, *ty, out)?;
        for f in freqs {
            out.extend_from_slice(&f.to_le_bytes());
        }
        encode_values(&column.histogram, *ty, out)?;
    }
    Ok(())
}

fn encode_values(values: &[Value], ty: SqlType, out: &mut Vec<u8>) -> Result<(), String> {
    let row = encode_row(values, &vec![ty; values.len()]).map_err(|e| e.to_string())?;
    out.extend_from_slice(&(values.len() as u16).to_le_bytes());
    out.extend_from_slice(&(row.len() as u32).to_le_bytes());
    out.extend_from_slice(&row);
    Ok(())
}

/// The tables a file holds, or `None` if any of it does not read.
fn decode(bytes: &[u8]) -> Option<Vec<(u64, TableStats)>> {
    let mut r = Reader(bytes.strip_prefix(HEADER)?);
    let mut tables = Vec::new();
    while !r.0.is_empty() {
        let oid = r.u64()?;
        let pages = r.u64()?;
        let rows = r.f64()?;
        let n = r.u16()?;
        let mut types = Vec::with_capacity(n.into());
        let mut columns = Vec::with_capacity(n.into());
        for _ in 0..n {
            let ty = SqlType::from_oid(r.u32()?, r.u32()? as i32)?;
            let (null_frac, n_distinct, correlation) = (r.f64()?, r.f64()?, r.f64()?);
            let avg_width = r.u32()?;
            let values = r.values(ty)?;
            let freqs = (0..values.len())
                .map(|_| r.f64())
                .collect::<Option<Vec<f64>>>()?;
            let histogram = r.values(ty)?;
            types.push(ty);
            columns.push(ColumnStats {
                null_frac,
                n_distinct,
                mcv: values.into_iter().zip(freqs).collect(),
                histogram,
                correlation,
                avg_width,
            });
        }
        tables.push((
            oid,
            TableStats {
                pages,
                rows,
                types,
                columns,
            },
        ));
    }
    Some(tables)
}

/// Reads the file's fields in order; `None` past its end.
struct Reader<'b>(&'b [u8]);

impl<'b> Reader<'b> {
    fn take(&mut self, n: usize) -> Option<&'b [u8]> {
        if self.0.len() < n {
            return None;
        }
        let (head, rest) = self.0.split_at(n);
        self.0 = rest;
        Some(head)
    }

    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn f64(&mut self) -> Option<f64> {
        Some(f64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    /// A count, then a row of that many values of type `ty`.
    fn values(&mut self, ty: SqlType) -> Option<Vec<Value>> {
        let n = self.u16()?;
        let len = self.u32()? as usize;
        let row = self.take(len)?;
        let values = decode_row(row, &vec![ty; n.into()]).ok()?;
        (values.len() == usize::from(n)).then_some(values)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TableStats {
        TableStats {
            pages: 12,
            rows: 1000.0,
            types: vec![SqlType::Int4, SqlType::Text],
            columns: vec![
                ColumnStats {
                    null_frac: 0.0,
                    n_distinct: -1.0,
                    mcv: Vec::new(),
                    histogram: vec![Value::Int4(1), Value::Int4(500), Value::Int4(1000)],
                    correlation: 1.0,
                    avg_width: 4,
                },
                ColumnStats {
                    null_frac: 0.25,
                    n_distinct: 3.0,
                    mcv: vec![
                        (Value::Text("a".into()), 0.5),
                        (Value::Text("b".into()), 0.25),
                    ],
                    histogram: Vec::new(),
                    correlation: -0.5,
                    avg_width: 2,
                },
            ],
        }
    }

    // Proves statistics round-trip through the file's bytes, and that a
    // torn, empty or foreign file loads nothing rather than something
    // wrong.
    #[test]
    fn statistics_round_trip_and_damage_loads_nothing() {
        let mut bytes = HEADER.to_vec();
        encode_table(16384, &sample(), &mut bytes).unwrap();
        encode_table(16390, &sample(), &mut bytes).unwrap();
        let tables = decode(&bytes).unwrap();
        assert_eq!(tables, vec![(16384, sample()), (16390, sample())]);
        for cut in [bytes.len() - 1, bytes.len() / 2, HEADER.len() + 3] {
            assert_eq!(decode(&bytes[..cut]), None, "cut at {cut}");
        }
        assert_eq!(decode(b""), None);
        assert_eq!(decode(&[0; 64]), None);
        assert_eq!(decode(HEADER), Some(Vec::new()));
    }
}
