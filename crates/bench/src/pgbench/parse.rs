//! What the clients and tools print, read back: pgbench's tps and error
//! lines, psql's errors, the `Buffers:` line of an `explain (analyze,
//! buffers)`, `pg_controldata`'s redo point, `pg_waldump --stats`' totals
//! and `folio serve`'s recovery line. Each parser is tested on output
//! captured from PostgreSQL 15.18 and folio.

/// pgbench's `tps = N (without initial connection time)`.
pub fn tps(stdout: &str) -> Option<f64> {
    stdout.lines().find_map(|line| {
        let rest = line.strip_prefix("tps = ")?;
        let (number, note) = rest.split_once(' ')?;
        if note.contains("without initial connection time") {
            number.parse().ok()
        } else {
            None
        }
    })
}

/// pgbench's `number of transactions actually processed: N` (or `N/M`
/// with `-t`, of which N is done).
pub fn transactions(stdout: &str) -> Option<u64> {
    stdout.lines().find_map(|line| {
        let rest = line.strip_prefix("number of transactions actually processed: ")?;
        rest.split('/').next()?.trim().parse().ok()
    })
}

/// The message of a failed client run, one line: the server's `ERROR:`
/// (with its SQLSTATE when psql is verbose) if the client printed one,
/// else the client's own `error:`/`fatal:` line, else the last line.
pub fn client_error(stderr: &str) -> String {
    let lines: Vec<&str> = stderr.lines().map(str::trim).collect();
    let server = lines.iter().find_map(|line| {
        line.find("ERROR:")
            .or_else(|| line.find("FATAL:"))
            .map(|at| squeeze(&line[at..]))
    });
    let client = || {
        lines
            .iter()
            .find(|line| line.contains("error:") || line.contains("fatal:"))
            .map(|line| squeeze(line))
    };
    server
        .or_else(client)
        .or_else(|| {
            lines
                .iter()
                .rev()
                .find(|l| !l.is_empty())
                .map(|l| squeeze(l))
        })
        .unwrap_or_else(|| "failed without a message".to_string())
}

/// Runs of spaces as one (PostgreSQL writes `ERROR:  text`).
fn squeeze(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// Buffer accesses of a plan node: `Buffers: shared hit=N read=M`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Buffers {
    pub hit: u64,
    pub read: u64,
}

/// The `Buffers:` line of the top plan node of an `explain (analyze,
/// buffers)`: the first line of the output is the node, its details
/// follow indented until a child (`->`) or the planning section. A
/// node's counts include its children's, so a plan that touched pages
/// has the line on its top node; without it, the output is not what
/// PostgreSQL prints and is an error rather than zero hits.
pub fn top_node_buffers(explain: &str) -> Result<Buffers, String> {
    let mut lines = explain.lines();
    lines.next().ok_or("explain printed nothing")?;
    for line in lines {
        let trimmed = line.trim_start();
        if trimmed.starts_with("->") || !line.starts_with(' ') {
            break;
        }
        if let Some(counts) = trimmed.strip_prefix("Buffers:") {
            return parse_buffers(counts)
                .ok_or_else(|| format!("unreadable Buffers line {trimmed:?}"));
        }
    }
    Err(format!(
        "no Buffers line on the top plan node in:\n{}",
        explain.trim_end()
    ))
}

/// `shared hit=N read=M dirtied=D, temp read=...`: the shared hit and read
/// counts (absent ones are zero).
fn parse_buffers(counts: &str) -> Option<Buffers> {
    let shared = counts
        .split(',')
        .map(str::trim)
        .find_map(|part| part.strip_prefix("shared"))?;
    let mut buffers = Buffers { hit: 0, read: 0 };
    for pair in shared.split_whitespace() {
        let (name, value) = pair.split_once('=')?;
        let value = value.parse().ok()?;
        match name {
            "hit" => buffers.hit = value,
            "read" => buffers.read = value,
            _ => {}
        }
    }
    Some(buffers)
}

/// `Latest checkpoint's REDO location:    0/241C4E8` of `pg_controldata`.
pub fn controldata_redo(stdout: &str) -> Option<String> {
    stdout.lines().find_map(|line| {
        let value = line.strip_prefix("Latest checkpoint's REDO location:")?;
        Some(value.trim().to_string())
    })
}

/// The `Total` line of `pg_waldump --stats`: (records, combined bytes of
/// records and full-page images).
pub fn waldump_total(stdout: &str) -> Option<(u64, u64)> {
    let line = stdout
        .lines()
        .find(|line| line.split_whitespace().next() == Some("Total"))?;
    let numbers: Vec<u64> = line
        .split_whitespace()
        .filter_map(|field| field.parse().ok())
        .collect();
    // Total  N  record-bytes [x%]  fpi-bytes [y%]  combined [100%]
    match numbers.as_slice() {
        [records, _, _, combined] => Some((*records, *combined)),
        _ => None,
    }
}

/// `folio: recovery replayed N records, B bytes of WAL ...`: the last such
/// line of a `folio serve` log, as (records, bytes).
pub fn folio_recovery(log: &str) -> Option<(u64, u64)> {
    log.lines().rev().find_map(|line| {
        let rest = line.strip_prefix("folio: recovery replayed ")?;
        let (records, rest) = rest.split_once(" records, ")?;
        let (bytes, _) = rest.split_once(" bytes")?;
        Some((records.parse().ok()?, bytes.parse().ok()?))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const PGBENCH_RUN: &str = "pgbench (15.18 (Debian 15.18-0+deb12u1))
transaction type: <builtin: TPC-B (sort of)>
scaling factor: 1
query mode: simple
number of clients: 2
number of threads: 2
maximum number of tries: 1
duration: 1 s
number of transactions actually processed: 255
number of failed transactions: 0 (0.000%)
latency average = 7.829 ms
initial connection time = 9.628 ms
tps = 255.450359 (without initial connection time)
";

    // Proves tps and the transaction count are read from a real pgbench
    // 15 report, and a report without them gives none.
    #[test]
    fn pgbench_report() {
        assert_eq!(tps(PGBENCH_RUN), Some(255.450359));
        assert_eq!(transactions(PGBENCH_RUN), Some(255));
        assert_eq!(
            transactions("number of transactions actually processed: 150/200\n"),
            Some(150)
        );
        assert_eq!(
            tps("tps = 12.5 (including connections establishing)\n"),
            None
        );
        assert_eq!(tps(""), None);
    }

    // Proves the server's message is what a failed run reports: from
    // pgbench's abort line, from psql's verbose error, and the client's
    // own message when the server said nothing.
    #[test]
    fn error_messages() {
        let pgbench = "pgbench: error: client 3 script 0 aborted in command 1 query 0: ERROR:  integer out of range\n\
                       pgbench: error: Run was aborted; the above results are incomplete.\n";
        assert_eq!(client_error(pgbench), "ERROR: integer out of range");
        let psql = "ERROR:  0A000: CREATE INDEX is not supported\nLOCATION:  exec, ddl.rs:10\n";
        assert_eq!(
            client_error(psql),
            "ERROR: 0A000: CREATE INDEX is not supported"
        );
        let refused = "psql: error: connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\
                       \tIs the server running on that host and accepting TCP/IP connections?\n";
        assert!(client_error(refused).starts_with("psql: error: connection to server"));
        assert_eq!(client_error("\n"), "failed without a message");
    }

    // Proves the top node's Buffers line is found in PostgreSQL 15's
    // layouts (hit only, hit and read, below an Index Cond line) and that
    // the planning section's line is never taken for it.
    #[test]
    fn explain_buffers() {
        let backward = "Index Scan Backward using pgbench_accounts_pkey on pgbench_accounts (actual rows=100000 loops=1)
  Buffers: shared hit=2655
Planning:
  Buffers: shared hit=64
Planning Time: 0.297 ms
Execution Time: 16.278 ms
";
        assert_eq!(
            top_node_buffers(backward),
            Ok(Buffers { hit: 2655, read: 0 })
        );
        let cold = "Index Scan using pgbench_accounts_pkey on pgbench_accounts (actual rows=100000 loops=1)
  Buffers: shared hit=2441 read=108
Planning:
  Buffers: shared hit=64
";
        assert_eq!(
            top_node_buffers(cold),
            Ok(Buffers {
                hit: 2441,
                read: 108
            })
        );
        let in_list =
            "Index Scan using pgbench_accounts_pkey on pgbench_accounts (actual rows=6 loops=1)
  Index Cond: (aid = ANY ('{1,500,1000,1500,2000,3000}'::integer[]))
  Buffers: shared hit=21
Planning:
  Buffers: shared hit=64
";
        assert_eq!(top_node_buffers(in_list), Ok(Buffers { hit: 21, read: 0 }));
        let read_only = "Seq Scan on t (actual rows=1 loops=1)\n  Buffers: shared read=5 dirtied=1, temp read=3\n";
        assert_eq!(top_node_buffers(read_only), Ok(Buffers { hit: 0, read: 5 }));
        let planning_only = "Result (actual rows=1 loops=1)\nPlanning:\n  Buffers: shared hit=3\n";
        assert!(top_node_buffers(planning_only).is_err());
        assert!(top_node_buffers("").is_err());
    }

    // Proves the redo point and the waldump totals are read from
    // pg_controldata and pg_waldump --stats as PostgreSQL 15 prints them.
    #[test]
    fn postgresql_recovery_tools() {
        let controldata = "Database cluster state:               in production
Latest checkpoint location:           0/241C520
Latest checkpoint's REDO location:    0/241C4E8
Latest checkpoint's REDO WAL file:    000000010000000000000002
";
        assert_eq!(controldata_redo(controldata).as_deref(), Some("0/241C4E8"));
        let stats = "Type                                           N      (%)          Record size      (%)             FPI size      (%)        Combined size      (%)
----                                           -      ---          -----------      ---             --------      ---        -------------      ---
XLOG                                           2 (  0.05)                  114 (  0.03)                    0 (  0.00)                  114 (  0.02)
                                        --------                      --------                      --------                      --------
Total                                     652427                      50403215 [93.32%]              3606916 [6.68%]              54010131 [100%]
";
        assert_eq!(waldump_total(stats), Some((652427, 54010131)));
        assert_eq!(waldump_total("Total\n"), None);
    }

    // Proves the last recovery line of a folio serve log is the one read.
    #[test]
    fn folio_recovery_line() {
        let log =
            "folio: recovery replayed 1 records, 80 bytes of WAL from 0/100 to 0/150 in 0.001 s
folio: serving d on 127.0.0.1:5 (PostgreSQL protocol 3.0, user and database \"postgres\")
folio: recovery replayed 61234 records, 9876543 bytes of WAL from 0/100 to 0/9A0000 in 0.123 s
";
        assert_eq!(folio_recovery(log), Some((61234, 9876543)));
        assert_eq!(folio_recovery("folio: serving\n"), None);
    }
}
