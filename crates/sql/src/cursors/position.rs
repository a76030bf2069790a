//! Where a cursor stands and what a FETCH or MOVE returns, as
//! PostgreSQL 15's portals (`pquery.c`: `DoPortalRunFetch`,
//! `PortalRunSelect`, `DoPortalRewind`), over rows already held.
//!
//! Two views of the place are kept, as PostgreSQL keeps them:
//!
//! - `at` over the held rows: 0 before the first, `k` on row `k`
//!   (1-based), `rows + 1` past the last. Rows are read from it.
//! - PostgreSQL's `at_start`, `at_end` and `portal_pos` flags, which
//!   decide *how* a direction is carried out (rewind, or scan backward,
//!   or forward), and so which of them a NO SCROLL cursor refuses (55000)
//!   and what a MOVE counts. They are updated only as PostgreSQL updates
//!   them, so the same statements fail or succeed as there.

use crate::error::SqlError;

/// `ALL` as a count (PostgreSQL's `FETCH_ALL`).
pub const ALL: i64 = i64::MAX;

/// A FETCH or MOVE direction with its count, as PostgreSQL's grammar
/// reduces them: `NEXT` is `Forward(1)`, `PRIOR` `Backward(1)`, `FIRST`
/// `Absolute(1)`, `LAST` `Absolute(-1)`, `n` `Forward(n)`, `ALL`
/// `Forward(ALL)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    Forward(i64),
    Backward(i64),
    Absolute(i64),
    Relative(i64),
}

/// A cursor's place among its rows.
#[derive(Debug, Clone)]
pub struct Position {
    /// 0: before the first row; `k`: on row `k`; `rows + 1`: past the last.
    at: usize,
    rows: usize,
    at_start: bool,
    at_end: bool,
    portal_pos: u64,
    /// NO SCROLL: a backward step or a rewind after moving is 55000.
    scroll: bool,
}

/// What one step read: the rows (indexes into the held rows, in the
/// order read) and how many.
type Read = Vec<usize>;

impl Position {
    /// Before the first of `rows` rows.
    pub fn new(rows: usize, scroll: bool) -> Position {
        Position {
            at: 0,
            rows,
            at_start: true,
            at_end: false,
            portal_pos: 0,
            scroll,
        }
    }

    /// The held row the cursor stands on (an index), if it stands on one:
    /// PostgreSQL's test is its `atStart` / `atEnd` flags.
    pub fn current(&self) -> Option<usize> {
        let on_row = !self.at_start && !self.at_end && (1..=self.rows).contains(&self.at);
        on_row.then(|| self.at - 1)
    }

    /// Carries out `direction`: the rows a FETCH returns (indexes into the
    /// held rows, in order), or with `moving` (MOVE) none, and the count
    /// its tag shows.
    pub fn fetch(
        &mut self,
        direction: Direction,
        moving: bool,
    ) -> Result<(Vec<usize>, u64), SqlError> {
        let (mut forward, mut count) = match direction {
            Direction::Forward(n) if n < 0 => (false, -n),
            Direction::Forward(n) => (true, n),
            Direction::Backward(n) if n < 0 => (true, -n),
            Direction::Backward(n) => (false, n),
            Direction::Absolute(n) => return self.absolute(n, moving),
            Direction::Relative(n) if n > 0 => {
                if n > 1 {
                    self.select(true, n - 1)?;
                }
                return Ok(returned(self.select(true, 1)?, moving));
            }
            Direction::Relative(n) if n < 0 => {
                if n < -1 {
                    self.select(false, -n - 1)?;
                }
                return Ok(returned(self.select(false, 1)?, moving));
            }
            Direction::Relative(_) => (true, 0),
        };
        // A count of zero reads the current row again, if there is one.
        if count == 0 {
            let on_row = !self.at_start && !self.at_end;
            if moving {
                return Ok((Vec::new(), u64::from(on_row)));
            }
            if on_row {
                self.select(false, 1)?;
                count = 1;
                forward = true;
            }
        }
        // MOVE BACKWARD ALL is a rewind.
        if !forward && count == ALL && moving {
            let mut moved = self.portal_pos;
            if moved > 0 && !self.at_end {
                moved -= 1;
            }
            self.rewind()?;
            return Ok((Vec::new(), moved));
        }
        Ok(returned(self.select(forward, count)?, moving))
    }

    /// `ABSOLUTE n`: to row `n` (from the end if negative; 0: before the
    /// first), by the way PostgreSQL chooses (a rewind when the row is
    /// nearer the start than half the way back).
    fn absolute(&mut self, n: i64, moving: bool) -> Result<(Vec<usize>, u64), SqlError> {
        if n > 0 {
            let pos = self.portal_pos;
            if n - 1 <= (pos / 2) as i64 {
                self.rewind()?;
                if n > 1 {
                    self.select(true, n - 1)?;
                }
            } else {
                let pos = pos as i64 + i64::from(self.at_end);
                if n <= pos {
                    self.select(false, pos - n + 1)?;
                } else if n > pos + 1 {
                    self.select(true, n - pos - 1)?;
                }
            }
            return Ok(returned(self.select(true, 1)?, moving));
        }
        if n < 0 {
            self.select(true, ALL)?;
            if n < -1 {
                self.select(false, -n - 1)?;
            }
            return Ok(returned(self.select(false, 1)?, moving));
        }
        self.rewind()?;
        Ok(returned(self.select(true, 0)?, moving))
    }

    /// PostgreSQL's `PortalRunSelect`: up to `count` rows (`ALL`: all)
    /// forward or backward; a count of 0 or a start (end) already reached
    /// reads nothing and leaves the flags.
    fn select(&mut self, forward: bool, count: i64) -> Result<Read, SqlError> {
        if !forward && !self.scroll {
            return Err(only_forward());
        }
        let stays = if forward { self.at_end } else { self.at_start };
        if stays || count <= 0 {
            return Ok(Vec::new());
        }
        let mut read = Vec::new();
        if forward {
            while (count == ALL || (read.len() as i64) < count) && self.at < self.rows {
                self.at += 1;
                read.push(self.at - 1);
            }
            if count == ALL || (read.len() as i64) < count {
                self.at = self.rows + 1;
                self.at_end = true;
            }
            if !read.is_empty() {
                self.at_start = false;
            }
            self.portal_pos += read.len() as u64;
        } else {
            while (count == ALL || (read.len() as i64) < count) && self.at > 1 {
                self.at -= 1;
                read.push(self.at - 1);
            }
            if !read.is_empty() && self.at_end {
                self.at_end = false;
                self.portal_pos += 1;
            }
            if count == ALL || (read.len() as i64) < count {
                self.at = 0;
                self.at_start = true;
                self.portal_pos = 0;
            } else {
                self.portal_pos -= read.len() as u64;
            }
        }
        Ok(read)
    }

    /// Back before the first row (`DoPortalRewind`): nothing to do for a
    /// cursor that never moved, else a NO SCROLL one refuses.
    fn rewind(&mut self) -> Result<(), SqlError> {
        if self.at_start && !self.at_end {
            return Ok(());
        }
        if !self.scroll {
            return Err(only_forward());
        }
        self.at = 0;
        self.at_start = true;
        self.at_end = false;
        self.portal_pos = 0;
        Ok(())
    }
}

/// What a FETCH returns of the rows a step read (a MOVE: none), and the
/// count its tag shows.
fn returned(read: Read, moving: bool) -> (Vec<usize>, u64) {
    let count = read.len() as u64;
    (if moving { Vec::new() } else { read }, count)
}

/// PostgreSQL's 55000 for a backward step of a NO SCROLL cursor.
fn only_forward() -> SqlError {
    SqlError::new("55000", "cursor can only scan forward")
        .with_hint("Declare it with SCROLL option to enable backward scan.")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Proves the position rules on five rows against what PostgreSQL 15
    /// returned for the same steps (`cursors.slt` has them through SQL).
    #[test]
    fn steps_as_postgres() {
        let mut p = Position::new(5, true);
        let mut fetch = |d| p.fetch(d, false).unwrap().0;
        assert_eq!(fetch(Direction::Forward(2)), vec![0, 1]);
        assert_eq!(fetch(Direction::Backward(1)), vec![0]);
        assert_eq!(fetch(Direction::Absolute(-1)), vec![4]);
        assert_eq!(fetch(Direction::Forward(1)), Vec::<usize>::new());
        assert_eq!(fetch(Direction::Backward(ALL)), vec![4, 3, 2, 1, 0]);
        assert_eq!(fetch(Direction::Relative(3)), vec![2]);
        assert_eq!(fetch(Direction::Forward(0)), vec![2]);
        assert_eq!(fetch(Direction::Absolute(0)), Vec::<usize>::new());
        assert_eq!(fetch(Direction::Absolute(9)), Vec::<usize>::new());
        assert_eq!(fetch(Direction::Backward(1)), vec![4]);
    }

    /// Proves a NO SCROLL cursor refuses a backward step but not a rewind
    /// before it moved.
    #[test]
    fn no_scroll_refuses_backward() {
        let mut p = Position::new(3, false);
        assert_eq!(p.fetch(Direction::Backward(ALL), true).unwrap().1, 0);
        assert_eq!(p.fetch(Direction::Absolute(1), false).unwrap().0, vec![0]);
        assert_eq!(
            p.fetch(Direction::Absolute(1), false).unwrap_err().code,
            "55000"
        );
    }
}
