//! `subgroup::bitonic_sort_kv(_tiled)`: every key dtype × value dtype × tile size × the input
//! patterns (so NaN, ±0, INT_MIN/INT_MAX and all-equal keys — ties ordered by value), plus tiles
//! partially filled and padded with the key type's sentinel. Two references: Quadrants' network
//! simulated stage by stage in plain Rust (bit-exact, NaN included) and, for tiles without NaN,
//! the property that each tile comes out as a permutation of its input, ascending by
//! (key, value) under the dtypes' `<`.

use crate::elem::{mix, Elem};
use crate::harness::{check, Outcome, Suite};
use crate::subgroup_util::{expect_wide_tile_error, input, launch, log2_width, patterns, typed, N, TILES};
use qd_lib::subgroup as sg;
use qd_rt::Device;

/// Registers the cases.
pub fn register(s: &mut Suite) {
    crate::for_each_dtype!(K => {
        crate::for_each_dtype!(V => {
            for l in TILES {
                s.case(format!("subgroup::sort/{}/{}/L{l}", K::TY, V::TY), move |dev| case::<K, V>(dev, l));
            }
        });
        s.case(format!("subgroup::sort/{}/padded", K::TY), padded::<K>);
    });
}

/// Quadrants' schedule on tiles of `2^l` lanes, over the flat arrays.
pub fn network<K: Elem, V: Elem>(keys: &[K], vals: &[V], l: u32) -> (Vec<K>, Vec<V>) {
    let (mut k, mut v) = (keys.to_vec(), vals.to_vec());
    let tile_mask = (1usize << l) - 1;
    for kk in 1..=l {
        let kmask = 1usize << kk;
        for j in (0..kk).rev() {
            let jmask = 1usize << j;
            let (k0, v0) = (k.clone(), v.clone());
            for lane in 0..k.len() {
                let p = lane ^ jmask;
                let (tk, tv, mk, mv) = (k0[p], v0[p], k0[lane], v0[lane]);
                let i_am_low = lane & jmask == 0;
                let ascending = lane & kmask & tile_mask == 0;
                let take_min = i_am_low == ascending;
                let their_lt = tk < mk || (tk == mk && tv < mv);
                #[allow(clippy::float_cmp)]
                let differs = tk != mk || tv != mv;
                let take = if take_min { their_lt } else { !their_lt && differs };
                if take {
                    k[lane] = tk;
                    v[lane] = tv;
                }
            }
        }
    }
    (k, v)
}

/// For each tile without NaN: the output is its input permuted (by bits) and ascending.
fn sorted_permutation<K: Elem, V: Elem>(keys: &[K], vals: &[V], ok: &[K], ov: &[V], l: u32) -> Outcome {
    let t = 1usize << l;
    for base in (0..keys.len()).step_by(t) {
        let r = base..base + t;
        #[allow(clippy::eq_op)]
        let nan = keys[r.clone()].iter().any(|x| x != x) || vals[r.clone()].iter().any(|x| x != x);
        if nan {
            continue;
        }
        for i in base + 1..base + t {
            let lt = ok[i] < ok[i - 1] || (ok[i] == ok[i - 1] && ov[i] < ov[i - 1]);
            if lt {
                return Err(format!("tile at {base}: lane {i} ({:?}, {:?}) < lane {} ", ok[i], ov[i], i - 1));
            }
        }
        let mut a: Vec<(u64, u64)> = r.clone().map(|i| (keys[i].to_bits(), vals[i].to_bits())).collect();
        let mut b: Vec<(u64, u64)> = r.map(|i| (ok[i].to_bits(), ov[i].to_bits())).collect();
        a.sort_unstable();
        b.sort_unstable();
        if a != b {
            return Err(format!("tile at {base}: output is not a permutation of the input"));
        }
    }
    Ok(())
}

fn case<K: Elem, V: Elem>(dev: &Device, l: u32) -> Outcome {
    let lw = log2_width(dev);
    let keys: Vec<K> = patterns(u64::from(l) + 4000);
    // Values: distinct-ish samples, with blocks of equal values where keys are equal too.
    let vals: Vec<V> = patterns(u64::from(l) + 5000);
    let with_full = l == lw;
    let n_out = if with_full { 4 } else { 2 };
    let mut tys = vec![K::TY, V::TY];
    if with_full {
        tys.extend([K::TY, V::TY]);
    }
    let r = launch(dev, "sort", vec![input(&keys), input(&vals)], &tys[..n_out], |k, x, _| {
        let (a, b) = sg::bitonic_sort_kv_tiled(k, x[0], x[1], l)?;
        let mut r = vec![a, b];
        if with_full {
            let (c, d) = sg::bitonic_sort_kv(k, x[0], x[1])?;
            r.extend([c, d]);
        }
        Ok(r)
    });
    if l > lw {
        return expect_wide_tile_error(dev, l, r);
    }
    let outs = r?;
    let (wk, wv) = network(&keys, &vals, l);
    let (ok, ov) = (typed::<K>(&outs[0]), typed::<V>(&outs[1]));
    check("sorted keys", &ok, &wk)?;
    check("sorted values", &ov, &wv)?;
    sorted_permutation(&keys, &vals, &ok, &ov, l)?;
    if with_full {
        check("bitonic_sort_kv keys", &typed::<K>(&outs[2]), &wk)?;
        check("bitonic_sort_kv values", &typed::<V>(&outs[3]), &wv)?;
    }
    Ok(())
}

/// The short-input pattern: in each tile of every size, the first `n` lanes hold real keys (with
/// duplicates) and i32 values, the rest the sentinel key and value -1; the real pairs come out
/// sorted at the tile's head, the padding at its tail.
fn padded<K: Elem>(dev: &Device) -> Outcome {
    let lw = log2_width(dev);
    for l in 1..=lw {
        let t = 1usize << l;
        let real = |g: usize| g % t < [1, t / 2 + 1, t - 1, t][(g / t) % 4];
        let keys: Vec<K> =
            (0..N).map(|g| if real(g) { K::sample(mix(g as u64) % 13) } else { K::sentinel_max() }).collect();
        let vals: Vec<i32> = (0..N).map(|g| if real(g) { (mix(g as u64 + 1) % 1000) as i32 } else { -1 }).collect();
        let outs = launch(
            dev,
            "sort_padded",
            vec![input(&keys), input(&vals)],
            &[K::TY, qd_frontend::ScalarType::I32],
            |k, x, _| {
                let (a, b) = sg::bitonic_sort_kv_tiled(k, x[0], x[1], l)?;
                Ok(vec![a, b])
            },
        )?;
        let (ok, ov) = (typed::<K>(&outs[0]), typed::<i32>(&outs[1]));
        let (wk, wv) = network(&keys, &vals, l);
        check(&format!("L{l} keys"), &ok, &wk)?;
        check(&format!("L{l} values"), &ov, &wv)?;
        sorted_permutation(&keys, &vals, &ok, &ov, l)?;
        // Real pairs first: a tile with n real lanes ends with its n smallest (real) pairs.
        for base in (0..N).step_by(t) {
            let n = (base..base + t).filter(|g| real(*g)).count();
            if let Some(i) = (base..base + n).find(|i| ov[*i] == -1) {
                return Err(format!("L{l}: padding at lane {i} among the {n} real pairs of tile {base}"));
            }
        }
    }
    Ok(())
}
