//! Decoding arbitrary words never panics, on every processor, and every
//! successful decode prints; errors say which encoding and opcode.

use isa::{Decoder, Processor};
use proptest::prelude::*;

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn arbitrary_words_decode_without_panic(words in proptest::collection::vec(any::<u32>(), 0..6)) {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        for p in Processor::ALL {
            let d = Decoder::new(p);
            let mut total = 0usize;
            for (off, r) in d.decode_all(&bytes) {
                prop_assert!(off < bytes.len());
                match r {
                    Ok(i) => {
                        prop_assert!(i.len() >= 4 && off + i.len() <= bytes.len());
                        let _ = i.to_string();
                    }
                    Err(e) => {
                        let _ = e.to_string();
                    }
                }
                total += 1;
            }
            prop_assert!(total <= bytes.len() / 4 + 1);
        }
    }

    #[test]
    fn truncated_input_is_an_error(w in any::<u32>(), cut in 0usize..4) {
        let bytes = w.to_le_bytes();
        for p in Processor::ALL {
            if let Ok(i) = Decoder::new(p).decode(&bytes[..cut]) {
                prop_assert!(false, "decoded {} from {} bytes", i, cut);
            }
        }
    }
}
