//! The MessagePack reader against an independent implementation: rmpv
//! encodes random value trees (every type, every width class), and our
//! zero-copy reader must decode the same tree, both through the lazy
//! `Value` handles and through the `Visitor` walk. Random bytes must never
//! panic, and every error must carry an offset inside the input.

use loader_core::Location;
use loader_core::msgpack::{self, Position, Value, Visitor};
use proptest::prelude::*;
use rmpv::Value as R;

fn arb_value() -> impl Strategy<Value = R> {
    let leaf = prop_oneof![
        Just(R::Nil),
        any::<bool>().prop_map(R::Boolean),
        any::<u64>().prop_map(R::from),
        any::<i64>().prop_map(R::from),
        (0u64..200).prop_map(R::from),
        (-40i64..0).prop_map(R::from),
        any::<f32>().prop_map(R::F32),
        any::<f64>().prop_map(R::F64),
        ".{0,40}".prop_map(R::from),
        prop::collection::vec(any::<u8>(), 0..300).prop_map(R::Binary),
        (any::<i8>(), prop::collection::vec(any::<u8>(), 0..20)).prop_map(|(t, d)| R::Ext(t, d)),
    ];
    leaf.prop_recursive(5, 300, 20, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..20).prop_map(R::Array),
            prop::collection::vec((inner.clone(), inner), 0..20).prop_map(R::Map),
        ]
    })
}

fn same_float(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Compares our lazy value with rmpv's tree, recursively.
fn check(ours: Value<'_>, theirs: &R) -> Result<(), String> {
    let fail = || Err(format!("ours {ours:?} vs rmpv {theirs:?}"));
    match (ours, theirs) {
        (Value::Nil, R::Nil) => Ok(()),
        (Value::Bool(a), R::Boolean(b)) if a == *b => Ok(()),
        (Value::UInt(a), R::Integer(b)) if b.as_u64() == Some(a) => Ok(()),
        (Value::Int(a), R::Integer(b)) if b.as_i64() == Some(a) && a < 0 => Ok(()),
        (Value::F32(a), R::F32(b)) if same_float(a.into(), (*b).into()) => Ok(()),
        (Value::F64(a), R::F64(b)) if same_float(a, *b) => Ok(()),
        (Value::Str(a), R::String(b)) if Some(a) == b.as_str() => Ok(()),
        (Value::Bin(a), R::Binary(b)) if a == b.as_slice() => Ok(()),
        (Value::Ext(t, a), R::Ext(u, b)) if t == *u && a == b.as_slice() => Ok(()),
        (Value::Array(a), R::Array(b)) if a.len() as usize == b.len() => {
            for (x, y) in a.iter().zip(b) {
                check(x.map_err(|e| e.to_string())?, y)?;
            }
            Ok(())
        }
        (Value::Map(a), R::Map(b)) if a.len() as usize == b.len() => {
            for (x, (k, v)) in a.iter().zip(b) {
                let (xk, xv) = x.map_err(|e| e.to_string())?;
                check(xk, k)?;
                check(xv, v)?;
            }
            Ok(())
        }
        _ => fail(),
    }
}

/// Rebuilds an rmpv tree from the visitor events, to compare the walk.
#[derive(Default)]
struct Rebuild {
    stack: Vec<(bool, Vec<R>)>,
    done: Option<R>,
}

impl Rebuild {
    fn push(&mut self, v: R) {
        match self.stack.last_mut() {
            Some((_, items)) => items.push(v),
            None => self.done = Some(v),
        }
    }
    fn close(&mut self) {
        let (is_map, items) = self.stack.pop().expect("balanced");
        let v = if is_map {
            let mut it = items.into_iter();
            let mut pairs = Vec::new();
            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                pairs.push((k, v));
            }
            R::Map(pairs)
        } else {
            R::Array(items)
        };
        self.push(v);
    }
}

impl<'a> Visitor<'a> for Rebuild {
    fn scalar(&mut self, _: Position, v: Value<'a>) -> loader_core::Result<()> {
        let r = match v {
            Value::Nil => R::Nil,
            Value::Bool(b) => R::Boolean(b),
            Value::UInt(u) => R::from(u),
            Value::Int(i) => R::from(i),
            Value::F32(f) => R::F32(f),
            Value::F64(f) => R::F64(f),
            Value::Str(s) => R::from(s),
            Value::Bin(b) => R::Binary(b.to_vec()),
            Value::Ext(t, d) => R::Ext(t, d.to_vec()),
            Value::Array(_) | Value::Map(_) => unreachable!("containers are announced, not passed"),
        };
        self.push(r);
        Ok(())
    }
    fn begin_array(&mut self, _: Position, _: u32) -> loader_core::Result<()> {
        self.stack.push((false, Vec::new()));
        Ok(())
    }
    fn end_array(&mut self) -> loader_core::Result<()> {
        self.close();
        Ok(())
    }
    fn begin_map(&mut self, _: Position, _: u32) -> loader_core::Result<()> {
        self.stack.push((true, Vec::new()));
        Ok(())
    }
    fn end_map(&mut self) -> loader_core::Result<()> {
        self.close();
        Ok(())
    }
}

/// Bit-exact equality (NaN payloads included) for rebuilt trees.
fn bits_eq(a: &R, b: &R) -> bool {
    match (a, b) {
        (R::F32(x), R::F32(y)) => x.to_bits() == y.to_bits(),
        (R::F64(x), R::F64(y)) => x.to_bits() == y.to_bits(),
        (R::Array(x), R::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| bits_eq(p, q))
        }
        (R::Map(x), R::Map(y)) => {
            x.len() == y.len()
                && x.iter()
                    .zip(y)
                    .all(|((k1, v1), (k2, v2))| bits_eq(k1, k2) && bits_eq(v1, v2))
        }
        (R::Integer(x), R::Integer(y)) => x.as_i64() == y.as_i64() && x.as_u64() == y.as_u64(),
        _ => a == b,
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    #[test]
    fn decodes_what_rmpv_encodes(v in arb_value()) {
        let mut bytes = Vec::new();
        rmpv::encode::write_value(&mut bytes, &v).unwrap();
        let ours = msgpack::read_document(&bytes).map_err(|e| TestCaseError::fail(e.to_string()))?;
        check(ours, &v).map_err(TestCaseError::fail)?;
        let mut rebuilt = Rebuild::default();
        msgpack::walk(&bytes, &mut rebuilt).map_err(|e| TestCaseError::fail(e.to_string()))?;
        prop_assert!(bits_eq(rebuilt.done.as_ref().unwrap(), &v));
        // Every strict prefix is an error, never a panic or a wrong success.
        for cut in [0, bytes.len() / 3, bytes.len() / 2, bytes.len().saturating_sub(1)] {
            if cut < bytes.len() {
                prop_assert!(msgpack::read_document(&bytes[..cut]).is_err());
            }
        }
    }

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        let r = msgpack::read_document(&bytes);
        let w = msgpack::walk(&bytes, &mut Rebuild::default());
        // Reading checks structure (and the top value); strings inside a
        // container are checked when decoded, which the walk does for all.
        if w.is_ok() {
            prop_assert!(r.is_ok());
        }
        if let Err(e) = r {
            if let Location::Offset(o) = e.location() {
                prop_assert!(o as usize <= bytes.len());
            }
        }
    }
}
