//! Operands as text, for every operand type: a word that fits the type, or a refusal of
//! bounded length; the word's hex spelling parses back to it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use ptxfp::operand::parse_operand;
use ptxfp::{IntType, Type};

const MAX_MESSAGE: usize = 2000;

fuzz_target!(|input: (u8, &str)| {
    let (which, text) = input;
    let types: Vec<Type> = Type::FLOATS.into_iter().chain(IntType::ALL.map(Type::Int)).collect();
    let ty = types[usize::from(which) % types.len()];
    match parse_operand(ty, text) {
        Ok(word) => {
            assert!(ty.bits() == 64 || word >> ty.bits() == 0, "{text:?} as .{}: {word:#x}", ty.name());
            assert_eq!(parse_operand(ty, &format!("{word:#x}")), Ok(word));
        }
        Err(e) => {
            let message = e.to_string();
            assert!(message.len() <= MAX_MESSAGE, "{} bytes", message.len());
        }
    }
});
