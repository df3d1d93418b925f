//! `tailor-sim`: the engine alone, without Python — for benchmarks (peak RSS of the
//! engine, not of an interpreter) and for debugging. Users run `tailor run` instead.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use tailor::scenario::Scenario;

#[derive(Parser)]
#[command(version, about = "Run a tailor scenario with the packet engine (no Python front)")]
struct Args {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// Seed (default: the scenario's).
    #[arg(long)]
    seed: Option<u64>,
    /// Result directory; without it only the summary is printed.
    #[arg(long)]
    out: Option<PathBuf>,
}

fn main() -> ExitCode {
    let args = Args::parse();
    let sc = match Scenario::load(&args.scenario) {
        Ok(sc) => sc,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let seed = args.seed.unwrap_or(sc.seed);
    let mut quiet = |_: &tailor::engine::Progress| true;
    let result = match &args.out {
        Some(out) => tailor::output::run_to_dir(&sc, seed, out, &mut quiet),
        None => tailor::output::simulate(&sc, seed, Box::new(tailor::measure::record::NullSink), &mut quiet).map(|(_, s)| s),
    };
    match result {
        Ok(summary) => {
            println!("{}", serde_json::to_string_pretty(&summary).expect("serializes"));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
