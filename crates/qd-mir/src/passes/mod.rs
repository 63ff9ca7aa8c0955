//! MIR passes and the pipeline runner.
//!
//! Each pass rewrites a [`Function`] in place and keeps it valid structured SSA:
//! - [`fold`]: constant folding, integer algebraic identities, constant `select`/`if`.
//! - [`dce`]: removal of unused pure instructions and side-effect-free `if`s.
//! - [`cse`]: scoped hash-consing of pure ops; convergent ops only within one region.
//! - [`unroll`]: full unrolling of loops whose control path is decided by constants.
//! - [`expand`]: subgroup collectives (reduce, scan, segreduce, votes) to shuffle trees.
//! - [`raise`]: the reverse: hand-written shuffle trees to `subgroup.reduce`/`subgroup.scan`,
//!   when bit-exact (not in the default order [`Pass::ALL`]; see its module docs).
//!
//! [`run_pipeline`] runs a list of passes in order and calls the optional verifier hook of
//! [`PassOptions`] after each, so a pass that breaks the IR is named in the error.

pub mod cse;
pub mod dce;
pub mod expand;
pub mod fold;
pub mod raise;
pub mod rewrite;
pub mod unroll;

use crate::function::Function;
use core::fmt;

/// A pass the pipeline can run.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash)]
pub enum Pass {
    /// Constant folding and simplification ([`fold`]).
    Fold,
    /// Dead code elimination ([`dce`]).
    Dce,
    /// Common subexpression elimination ([`cse`]).
    Cse,
    /// Full unrolling of constant-trip loops ([`unroll`]).
    Unroll,
    /// Expansion of subgroup collectives into shuffle sequences ([`expand`]).
    ExpandCollectives,
    /// Raising of hand-written shuffle trees to reductions and scans ([`raise`]).
    Raise,
}

impl Pass {
    /// Every pass, in a sensible default order.
    pub const ALL: [Pass; 5] = [Pass::Unroll, Pass::Fold, Pass::Cse, Pass::ExpandCollectives, Pass::Dce];

    /// Every pass: [`Pass::ALL`] and the passes a back end runs on its own ([`Pass::Raise`]).
    pub const EVERY: [Pass; 6] = [Pass::Unroll, Pass::Fold, Pass::Cse, Pass::ExpandCollectives, Pass::Dce, Pass::Raise];

    /// The pass's command-line name: `fold`, `dce`, `cse`, `unroll`, `expand`, `raise`.
    pub fn name(self) -> &'static str {
        match self {
            Pass::Fold => "fold",
            Pass::Dce => "dce",
            Pass::Cse => "cse",
            Pass::Unroll => "unroll",
            Pass::ExpandCollectives => "expand",
            Pass::Raise => "raise",
        }
    }

    /// Parses a command-line name.
    pub fn from_name(s: &str) -> Option<Pass> {
        Pass::EVERY.into_iter().find(|p| p.name() == s)
    }

    /// Runs this pass once on `f`; returns whether it changed anything.
    pub fn run(self, f: &mut Function, opts: &PassOptions) -> Result<bool, PassError> {
        let wrap = |message: String| PassError { pass: self.name(), message };
        opts.check().map_err(wrap)?;
        match self {
            Pass::Fold => Ok(fold::run(f, opts)),
            Pass::Dce => Ok(dce::run(f)),
            Pass::Cse => Ok(cse::run(f)),
            Pass::Unroll => Ok(unroll::run(f, opts)),
            Pass::ExpandCollectives => expand::run(f, opts).map_err(wrap),
            Pass::Raise => Ok(raise::run(f, opts)),
        }
    }
}

impl fmt::Display for Pass {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// A verifier callback: `Err` carries the rendered diagnostics.
pub type VerifyFn = fn(&Function) -> Result<(), String>;

/// Options shared by the passes.
#[derive(Copy, Clone, Debug)]
pub struct PassOptions {
    /// The target's subgroup width (a power of two, 1..=64), if known: `subgroup_size` folds to it
    /// and collective expansion needs it for full-subgroup tiles.
    pub subgroup_width: Option<u32>,
    /// Called after each pass when set; an `Err` stops the pipeline with a [`PassError`].
    pub verify: Option<VerifyFn>,
    /// Loops with more iterations than this are not unrolled (default 64).
    pub unroll_max_trips: u32,
}

impl Default for PassOptions {
    fn default() -> Self {
        PassOptions { subgroup_width: None, verify: None, unroll_max_trips: 64 }
    }
}

impl PassOptions {
    /// Options for a target of the given subgroup width (other fields default).
    pub fn with_width(width: u32) -> PassOptions {
        PassOptions { subgroup_width: Some(width), ..PassOptions::default() }
    }

    /// Checks the options themselves (the subgroup width must be a power of two in 1..=64).
    pub fn check(&self) -> Result<(), String> {
        match self.subgroup_width {
            Some(w) if !(w.is_power_of_two() && w <= 64) => {
                Err(format!("subgroup width {w} is not a power of two in 1..=64"))
            }
            _ => Ok(()),
        }
    }
}

/// A pass failed, or the IR it produced failed verification.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PassError {
    /// The pass's name (see [`Pass::name`]).
    pub pass: &'static str,
    /// What went wrong.
    pub message: String,
}

impl fmt::Display for PassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "pass `{}`: {}", self.pass, self.message)
    }
}

impl std::error::Error for PassError {}

/// Runs `passes` in order on `f`; after each, calls `opts.verify` when set.
pub fn run_pipeline(f: &mut Function, passes: &[Pass], opts: &PassOptions) -> Result<(), PassError> {
    for &pass in passes {
        pass.run(f, opts)?;
        // Debug builds always check the MIR between passes; release builds only when asked.
        let hook = opts.verify.or(if cfg!(debug_assertions) { Some(verify_hook as VerifyFn) } else { None });
        if let Some(verify) = hook {
            verify(f).map_err(|m| PassError { pass: pass.name(), message: format!("invalid MIR after pass: {m}") })?;
        }
    }
    Ok(())
}

/// The verifier as a [`PassOptions::verify`] hook: `Ok` or the errors rendered on the MIR text.
pub fn verify_hook(f: &Function) -> Result<(), String> {
    crate::verify::verify_function(f).map(|_| ()).map_err(|e| e.render(f))
}

#[cfg(test)]
pub(crate) mod testutil;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for p in Pass::EVERY {
            assert_eq!(Pass::from_name(p.name()), Some(p));
        }
        assert_eq!(Pass::from_name("raise"), Some(Pass::Raise));
        assert!(!Pass::ALL.contains(&Pass::Raise));
        assert_eq!(Pass::from_name("expand"), Some(Pass::ExpandCollectives));
        assert_eq!(Pass::from_name("nope"), None);
        assert_eq!(PassOptions::default().unroll_max_trips, 64);
    }

    #[test]
    fn bad_width_is_an_error() {
        let mut f = Function::new("k");
        let e = run_pipeline(&mut f, &[Pass::Fold], &PassOptions::with_width(48)).unwrap_err();
        assert_eq!(e.pass, "fold");
        assert!(e.to_string().contains("48"), "{e}");
    }

    #[test]
    fn verify_hook_failure_names_the_pass() {
        fn reject(_: &Function) -> Result<(), String> {
            Err("nope".into())
        }
        let mut f = Function::new("k");
        let opts = PassOptions { verify: Some(reject), ..PassOptions::default() };
        let e = run_pipeline(&mut f, &[Pass::Dce, Pass::Fold], &opts).unwrap_err();
        assert_eq!(e.pass, "dce");
        assert!(e.message.contains("nope"));
    }
}
