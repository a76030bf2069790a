//! Numeric arithmetic and functions in folio-row alone, without SQL:
//! `cargo bench -p folio-row --bench numeric [-- CASE...]` prints the
//! time of one operation of each case (all cases without arguments).
//! `NUMERIC_BENCH_REPS=N` divides every case's repetitions by N (for a
//! run under callgrind, whose instruction counts per operation are the
//! deterministic measure on a shared machine).

use folio_row::{Numeric, Rounding};
use std::hint::black_box;
use std::time::Instant;

fn n(s: &str) -> Numeric {
    Numeric::parse(s).expect("a number")
}

fn main() {
    let divide: u32 = std::env::var("NUMERIC_BENCH_REPS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1);
    let chosen: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let x = n("1234567890123456789012345678901234567890.1");
    let seven = n("7");
    let three_thousand: Vec<Numeric> = (1..=3000).map(Numeric::from_i64).collect();
    type Case<'a> = (&'a str, u32, Box<dyn Fn() + 'a>);
    let cases: Vec<Case> = vec![
        (
            "mul41",
            200_000,
            Box::new(|| drop(black_box(x.checked_mul(&x)))) as Box<dyn Fn()>,
        ),
        (
            "div41",
            200_000,
            Box::new(|| {
                drop(black_box(x.checked_div(
                    &seven,
                    20,
                    Rounding::HalfAwayFromZero,
                )))
            }),
        ),
        (
            "add41",
            200_000,
            Box::new(|| drop(black_box(x.checked_add(&x)))),
        ),
        (
            "sqrt2",
            20_000,
            Box::new(|| drop(black_box(n("2").sqrt(16)))),
        ),
        ("exp1", 20_000, Box::new(|| drop(black_box(n("1").exp(16))))),
        ("ln2", 20_000, Box::new(|| drop(black_box(n("2").ln(16))))),
        (
            "power",
            2_000,
            Box::new(|| drop(black_box(n("1.5").pow(&n("0.333"), 16)))),
        ),
        (
            "exp5000",
            20,
            Box::new(|| drop(black_box(n("5000").exp(0)))),
        ),
        (
            "pow2_100000",
            20,
            Box::new(|| drop(black_box(n("2").powi(100_000, 0)))),
        ),
        (
            "factorial3000",
            20,
            Box::new(|| {
                let product = three_thousand
                    .iter()
                    .try_fold(n("1"), |p, i| p.checked_mul(i));
                drop(black_box(product));
            }),
        ),
    ];
    for (name, reps, run) in &cases {
        if !chosen.is_empty() && !chosen.iter().any(|c| c == name) {
            continue;
        }
        let reps = (reps / divide).max(1);
        let start = Instant::now();
        for _ in 0..reps {
            run();
        }
        let each = start.elapsed().as_secs_f64() / f64::from(reps);
        println!("{name:16} {:12.3} us  ({reps} runs)", each * 1e6);
    }
}
