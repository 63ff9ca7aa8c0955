//! `examples/cholesky.rs` (the blocked batched Cholesky of docs/tile.md) on every device of the
//! matrix, at small batches: partial last blocks (n = 40), several block columns (n = 80) and both
//! dtypes. A device narrower than 16 lanes must refuse with the example's message.

use crate::harness::{width, Suite};
use qd_rt::Device;

#[path = "../../examples/cholesky.rs"]
mod cholesky;

fn case<T: cholesky::Float>(dev: &Device, n: u32, batch: u32) -> Result<(), String> {
    match cholesky::run::<T>(dev, n, batch) {
        Ok(_) => Ok(()),
        Err(e) if cholesky::tile_for(dev, n).is_none() && e.contains("tiles need a subgroup of at least 16") => Ok(()),
        Err(e) => Err(format!("{} lanes: {e}", width(dev))),
    }
}

/// Registers the cases.
pub fn register(s: &mut Suite) {
    s.case("tile::example/cholesky/f32/n16", |dev| case::<f32>(dev, 16, 8));
    s.case("tile::example/cholesky/f32/n40", |dev| case::<f32>(dev, 40, 4));
    s.case("tile::example/cholesky/f32/n80", |dev| case::<f32>(dev, 80, 2));
    s.case("tile::example/cholesky/f64/n40", |dev| case::<f64>(dev, 40, 3));
}
