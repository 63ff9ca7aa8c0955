//! Round-trip property tests: random legal instructions survive encode → decode → display →
//! parse → encode with identical bytes on every target, `inst_size` matches the encoding, and
//! neither the decoder (random bytes) nor the parser (random and mutated text) ever panics.

mod common;

use proptest::prelude::*;
use qd_amdgcn_isa::{decode, decode_all, encode, inst_size, parse_asm};

fn round_trip(seed: u64, ti: usize) -> Result<(), TestCaseError> {
    let t = common::targets()[ti % 4];
    let mut rng = common::Rng(seed);
    let inst = common::legal(&mut rng, t);
    let mut bytes = Vec::new();
    encode(&inst, t, &mut bytes).map_err(|e| TestCaseError::fail(format!("encode {inst:?}: {e}")))?;
    prop_assert_eq!(inst_size(&inst, t), bytes.len(), "inst_size of {:?}", inst);
    let (back, size) =
        decode(&bytes, t).map_err(|e| TestCaseError::fail(format!("decode {inst:?} {bytes:02x?}: {e}")))?;
    prop_assert_eq!(size, bytes.len());
    let text = back.display(t).to_string();
    prop_assert_eq!(&text, &inst.display(t).to_string(), "display of the decoded instruction");
    let parsed = parse_asm(&text, t).map_err(|e| TestCaseError::fail(format!("{t}: parse `{text}`: {e}")))?;
    prop_assert_eq!(parsed.len(), 1);
    let mut again = Vec::new();
    encode(&parsed[0], t, &mut again).map_err(|e| TestCaseError::fail(format!("re-encode `{text}`: {e}")))?;
    prop_assert_eq!(&again, &bytes, "{}: `{}`", t, text);
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4000, ..ProptestConfig::default() })]

    #[test]
    fn legal_instructions_round_trip(seed in any::<u64>(), ti in 0usize..4) {
        round_trip(seed, ti)?;
    }

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..24), ti in 0usize..4) {
        let t = common::targets()[ti];
        if let Ok((inst, size)) = decode(&bytes, t) {
            // Whatever decodes re-encodes to the same bytes.
            let mut again = Vec::new();
            encode(&inst, t, &mut again).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(&again[..], &bytes[..size]);
        }
        let _ = decode_all(&bytes, t);
    }

    #[test]
    fn random_words_never_panic(words in proptest::collection::vec(any::<u32>(), 1..4), ti in 0usize..4) {
        let t = common::targets()[ti];
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        if let Ok((inst, size)) = decode(&bytes, t) {
            let mut again = Vec::new();
            encode(&inst, t, &mut again).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(&again[..], &bytes[..size]);
            let text = inst.display(t).to_string();
            let parsed = parse_asm(&text, t).map_err(|e| TestCaseError::fail(format!("`{text}`: {e}")))?;
            let mut third = Vec::new();
            encode(&parsed[0], t, &mut third).map_err(|e| TestCaseError::fail(format!("{e}")))?;
            prop_assert_eq!(&third[..], &bytes[..size], "`{}`", text);
        }
    }

    #[test]
    fn random_text_never_panics(text in "\\PC{0,60}", ti in 0usize..4) {
        let _ = parse_asm(&text, common::targets()[ti]);
    }

    #[test]
    fn mutated_text_never_panics(seed in any::<u64>(), ti in 0usize..4, cut in 0usize..80, junk in "[ -~]{0,6}") {
        let t = common::targets()[ti];
        let mut rng = common::Rng(seed);
        let text = common::legal(&mut rng, t).display(t).to_string();
        let at = text.char_indices().map(|(i, _)| i).nth(cut).unwrap_or(text.len());
        let mutated = format!("{}{}{}", &text[..at], junk, &text[(at + 1).min(text.len())..]);
        if let Err(e) = parse_asm(&mutated, t) {
            let _ = e.render(&mutated);
        }
    }
}
