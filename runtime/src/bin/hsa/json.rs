//! Writing the tool's JSON: serde_json, pretty-printed for reports, and the
//! one conversion serde cannot derive, a MessagePack document (the
//! `NT_AMDGPU_METADATA` map) into a JSON value that keeps its exact keys
//! in their order (serde_json's `preserve_order`).

use std::io::Write as _;

use loader_core::msgpack::Value;
use serde::Serialize;
use serde_json::{Map, Number, Value as Json};

/// Prints `value` as JSON on standard output, one document and a newline;
/// `compact` puts it on one line. A closed pipe is not an error.
pub fn print(value: &impl Serialize, compact: bool) -> std::io::Result<()> {
    let mut out = std::io::stdout().lock();
    let written = if compact {
        serde_json::to_writer(&mut out, value)
    } else {
        serde_json::to_writer_pretty(&mut out, value)
    };
    let result = written
        .map_err(std::io::Error::from)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush());
    match result {
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => other,
    }
}

/// A MessagePack value as JSON, map keys exactly as in the document.
///
/// JSON has no bytes, no non-string keys and no NaN: binary and extension
/// values become hex strings, other keys their debug form, and non-finite
/// floats their text. A key twice in one map is an error (JSON readers
/// disagree on what it means).
pub fn from_msgpack(v: Value<'_>) -> Result<Json, String> {
    Ok(match v {
        Value::Nil => Json::Null,
        Value::Bool(b) => Json::Bool(b),
        Value::UInt(n) => Json::from(n),
        Value::Int(n) => Json::from(n),
        Value::F32(x) => float(f64::from(x)),
        Value::F64(x) => float(x),
        Value::Str(s) => Json::from(s),
        Value::Bin(b) | Value::Ext(_, b) => Json::from(hex(b)),
        Value::Array(a) => Json::Array(
            a.iter()
                .map(|item| from_msgpack(item.map_err(|e| e.to_string())?))
                .collect::<Result<_, _>>()?,
        ),
        Value::Map(m) => {
            let mut map = Map::new();
            for pair in m.iter() {
                let (k, v) = pair.map_err(|e| e.to_string())?;
                let key = match k {
                    Value::Str(s) => s.to_owned(),
                    other => format!("{other:?}"),
                };
                if map.contains_key(&key) {
                    return Err(format!("map key {key:?} appears twice"));
                }
                map.insert(key, from_msgpack(v)?);
            }
            Json::Object(map)
        }
    })
}

fn float(x: f64) -> Json {
    Number::from_f64(x).map_or_else(|| Json::from(x.to_string()), Json::Number)
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
