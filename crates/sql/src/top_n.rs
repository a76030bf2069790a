//! ORDER BY with a LIMIT: only the first `limit + offset` rows in the
//! sort's order are ever needed, so a query keeps no more than twice
//! that many while its source streams past (PostgreSQL's "top-N
//! heapsort"). Rows are offered in scan order; the buffer is sorted and
//! cut back to `n` whenever it doubles, and once cut, a row that does not
//! sort strictly before the `n`-th kept one is dropped unseen (a tie goes
//! to the row read first, as in the full sort, which is stable). The rows
//! kept are exactly the full sort's first `n`, in its order.

use crate::error::SqlError;
use crate::plan::SortKey;
use crate::query::row_order;
use folio_row::Value;
use std::cmp::Ordering;

/// The first `n` rows of a stream under ORDER BY `keys`.
pub struct TopN<'k> {
    keys: &'k [SortKey],
    n: usize,
    /// The rows kept: after a cut, the first `n` sorted; then the rows
    /// offered since.
    rows: Vec<Vec<Value>>,
    /// The `n`-th row at the last cut: no later row equal or after it
    /// can be among the first `n`.
    last: Option<Vec<Value>>,
    failed: Option<SqlError>,
}

impl<'k> TopN<'k> {
    pub fn new(keys: &'k [SortKey], n: usize) -> TopN<'k> {
        TopN {
            keys,
            n,
            rows: Vec::new(),
            last: None,
            failed: None,
        }
    }

    /// Offers the next row of the stream.
    pub fn offer(&mut self, row: &[Value]) -> Result<(), SqlError> {
        if self.n == 0 {
            return Ok(());
        }
        if let Some(last) = &self.last
            && row_order(self.keys, row, last, &mut self.failed) != Ordering::Less
        {
            return self.failed.take().map_or(Ok(()), Err);
        }
        self.rows.push(row.to_vec());
        if self.rows.len() >= self.n.saturating_mul(2) {
            self.cut()?;
        }
        Ok(())
    }

    /// The first `n` rows, sorted.
    pub fn finish(mut self) -> Result<Vec<Vec<Value>>, SqlError> {
        self.cut()?;
        Ok(self.rows)
    }

    /// Sorts the rows kept (stably: of equal rows the one read first
    /// stays first) and keeps the first `n`.
    fn cut(&mut self) -> Result<(), SqlError> {
        let (keys, failed) = (self.keys, &mut self.failed);
        self.rows.sort_by(|a, b| row_order(keys, a, b, failed));
        if let Some(e) = self.failed.take() {
            return Err(e);
        }
        self.rows.truncate(self.n);
        if self.rows.len() == self.n {
            self.last = self.rows.last().cloned();
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::sort;
    use rand::rngs::SmallRng;
    use rand::{Rng, SeedableRng};

    // Proves the rows kept are the full stable sort's first `n`, in its
    // order, over streams with many ties and NULLs (each row carries its
    // position in the stream, so a tie resolved the wrong way shows):
    // every `n` from 0 past the stream's length, both directions and
    // NULL placements, on two keys.
    #[test]
    fn keeps_the_full_sorts_first_rows() {
        let mut rng = SmallRng::seed_from_u64(7);
        for round in 0..300 {
            let len = rng.gen_range(0..60);
            let rows: Vec<Vec<Value>> = (0..len)
                .map(|i| {
                    let key = |rng: &mut SmallRng| match rng.gen_range(0..6) {
                        0 => Value::Null,
                        k => Value::Int4(k),
                    };
                    vec![key(&mut rng), key(&mut rng), Value::Int8(i)]
                })
                .collect();
            let keys = [
                SortKey {
                    column: 0,
                    descending: round % 2 == 1,
                    nulls_first: round % 3 == 0,
                },
                SortKey {
                    column: 1,
                    descending: round % 5 == 0,
                    nulls_first: round % 7 == 0,
                },
            ];
            let keys = &keys[..1 + round % 2];
            let mut sorted = rows.clone();
            sort(&mut sorted, keys).unwrap();
            for n in [0, 1, 2, 3, 5, 8, 13, 40, 100] {
                let mut first = TopN::new(keys, n);
                for row in &rows {
                    first.offer(row).unwrap();
                }
                let expected: Vec<_> = sorted.iter().take(n).cloned().collect();
                assert_eq!(first.finish().unwrap(), expected, "round {round}, n {n}");
            }
        }
    }
}
