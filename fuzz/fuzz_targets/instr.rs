//! Instruction spellings and architecture names: any text is parsed or refused with a message
//! of bounded length; what parses spells itself canonically and parses back to itself.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxfp::{Instr, Target};

/// The longest message a refusal may have: quoted input is cut to 80 characters, and the
/// lists of legal alternatives are short.
const MAX_MESSAGE: usize = 2000;

fuzz_target!(|text: &str| {
    match text.parse::<Instr>() {
        Ok(instr) => {
            let spelled = instr.to_string();
            let again: Instr = spelled.parse().unwrap_or_else(|e| panic!("{spelled:?} does not parse back: {e}"));
            assert_eq!(again, instr, "{text:?} → {spelled:?}");
            assert_eq!(again.to_string(), spelled);
        }
        Err(e) => assert!(e.to_string().len() <= MAX_MESSAGE, "{} bytes", e.to_string().len()),
    }
    match text.parse::<Target>() {
        Ok(target) => assert_eq!(target.to_string().parse::<Target>().ok(), Some(target)),
        Err(e) => assert!(e.len() <= MAX_MESSAGE, "{} bytes", e.len()),
    }
});
