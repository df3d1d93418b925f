//! `tailor-sim`: the engine alone, without Python — for benchmarks (peak RSS of the
//! engine, not of an interpreter) and for debugging. Users run `tailor run` instead.

use clap::Parser;
use std::path::PathBuf;
use std::process::ExitCode;
use tailor::scenario::Scenario;

#[derive(Parser)]
#[command(version, about = "Run a tailor scenario with one of its engines (no Python front)")]
struct Args {
    /// Scenario file (TOML).
    scenario: PathBuf,
    /// Seed (default: the scenario's), 0 to 2^63 - 1 as in a scenario file.
    #[arg(long, value_parser = clap::value_parser!(u64).range(0..=tailor::scenario::MAX_SEED))]
    seed: Option<u64>,
    /// Result directory; without it only the summary is printed.
    #[arg(long)]
    out: Option<PathBuf>,
    /// The packet simulator, the SWP fast model, the SRPT oracle or the decomposed
    /// estimator (docs/decomposed.md).
    #[arg(long, value_enum, default_value_t = EngineArg::Packet)]
    engine: EngineArg,
}

#[derive(Copy, Clone, clap::ValueEnum)]
enum EngineArg {
    Packet,
    Model,
    Oracle,
    Decomposed,
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
    let engine = match args.engine {
        EngineArg::Packet => tailor::output::Engine::Packet,
        EngineArg::Model => tailor::output::Engine::Model,
        EngineArg::Oracle => tailor::output::Engine::Oracle,
        EngineArg::Decomposed => tailor::output::Engine::Decomposed,
    };
    let null = || Box::new(tailor::measure::record::NullSink);
    let result = match (&args.out, engine) {
        (Some(out), e) => tailor::output::run_engine_to_dir(&sc, seed, out, e, &mut quiet),
        (None, tailor::output::Engine::Packet) => {
            tailor::output::simulate(&sc, seed, null(), &mut quiet).map(|(_, s)| s)
        }
        (None, tailor::output::Engine::Model) => tailor::output::simulate_model(&sc, seed, null(), None),
        (None, tailor::output::Engine::Oracle) => tailor::output::simulate_oracle(&sc, seed, null(), &mut quiet),
        (None, tailor::output::Engine::Decomposed) => {
            tailor::output::simulate_decomposed(&sc, seed, null(), &mut quiet, None)
        }
    };
    match result {
        Ok(summary) => {
            // A reader that stops early (`| head`) is not an error of the run.
            use std::io::Write;
            let text = serde_json::to_string_pretty(&summary).expect("serializes");
            match writeln!(std::io::stdout(), "{text}") {
                Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => {
                    eprintln!("error: writing the summary: {e}");
                    ExitCode::from(1)
                }
                _ => ExitCode::SUCCESS,
            }
        }
        // A scenario the engine cannot run (outside the model's or the oracle's scope, or
        // summarising nothing) is a user error, as a scenario that does not parse.
        // So is one that makes no progress (engine::stall).
        // And so is one that needs more memory than it may take (engine::memory).
        Err(
            e @ (tailor::engine::RunError::Scenario(_)
            | tailor::engine::RunError::Stalled(_)
            | tailor::engine::RunError::Deadlock(_)
            | tailor::engine::RunError::Memory(_)),
        ) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        // So is an `--out` that names a directory already holding files (never written into).
        Err(tailor::engine::RunError::Io(e)) if e.kind() == std::io::ErrorKind::AlreadyExists => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(1)
        }
    }
}
