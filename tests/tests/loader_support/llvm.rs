//! Readers for what LLVM 19's own tools print about a code object: the
//! `AMDGPU Metadata` YAML of `llvm-readelf-19 --notes`, and the
//! `.amdhsa_kernel` blocks of `llvm-objdump-19 -D --disassemble-symbols=K.kd`.
//! These are the oracle of the differential tests; they parse only the
//! subset of YAML that LLVM's msgpack-to-YAML printer emits (block maps,
//! block sequences, plain / single-quoted / double-quoted scalars, `[]`, `{}`).

use std::fmt;
use std::path::Path;
use std::process::Command;

/// A scalar as the YAML text shows it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Scalar {
    /// Written without quotes: an integer, a boolean, or a string that
    /// cannot be mistaken for one.
    Plain(String),
    /// Written in single or double quotes: always a string.
    Quoted(String),
}

impl Scalar {
    /// The scalar's text, unquoted and unescaped.
    pub fn text(&self) -> &str {
        match self {
            Scalar::Plain(s) | Scalar::Quoted(s) => s,
        }
    }
}

/// A YAML node.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Node {
    /// A block or flow mapping, entries in document order.
    Map(Vec<(String, Node)>),
    /// A block or flow sequence.
    Seq(Vec<Node>),
    /// A scalar.
    Scalar(Scalar),
}

impl fmt::Display for Node {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Node::Map(m) => write!(f, "map of {} entries", m.len()),
            Node::Seq(s) => write!(f, "list of {} items", s.len()),
            Node::Scalar(Scalar::Plain(s)) => write!(f, "{s}"),
            Node::Scalar(Scalar::Quoted(s)) => write!(f, "'{s}'"),
        }
    }
}

/// Runs an LLVM 19 tool and returns its standard output. Fails the test
/// (never skips) when the tool is missing.
pub fn run_llvm_tool(tool: &str, args: &[&str], file: &Path) -> String {
    let out = Command::new(tool)
        .args(args)
        .arg(file)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run {tool} ({e}): install the Debian package llvm-19 \
             (`scripts/test` does this; by hand: apt-get install llvm-19)"
            )
        });
    assert!(
        out.status.success(),
        "{tool} {args:?} {} failed: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("LLVM tool output is UTF-8")
}

/// The YAML documents printed under `AMDGPU Metadata:` by
/// `llvm-readelf-19 --notes`, one per `NT_AMDGPU_METADATA` note, in note order.
pub fn readelf_metadata(file: &Path) -> Vec<Node> {
    let text = run_llvm_tool("llvm-readelf-19", &["--notes"], file);
    let mut docs = Vec::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        if line.trim() != "AMDGPU Metadata:" {
            continue;
        }
        // The document runs from `---` to `...`, at column 0.
        let start = lines.next().map(str::trim);
        assert_eq!(
            start,
            Some("---"),
            "{}: YAML document start",
            file.display()
        );
        let mut body = Vec::new();
        for l in lines.by_ref() {
            if l == "..." {
                break;
            }
            body.push(l);
        }
        docs.push(parse_yaml(&body).unwrap_or_else(|e| panic!("{}: {e}", file.display())));
    }
    docs
}

struct Line<'a> {
    indent: usize,
    text: &'a str,
    number: usize,
}

/// Parses the block YAML LLVM's printer emits.
pub fn parse_yaml(lines: &[&str]) -> Result<Node, String> {
    // Turn `- rest` lines into a dash marker plus `rest` as a line indented
    // two columns further, the usual way to read block sequences.
    let mut flat: Vec<(Line<'_>, bool)> = Vec::new();
    for (number, raw) in lines.iter().enumerate() {
        if raw.trim().is_empty() {
            continue;
        }
        let mut indent = raw.len() - raw.trim_start().len();
        let mut text = raw.trim_start();
        while let Some(rest) = text
            .strip_prefix("- ")
            .or(if text == "-" { Some("") } else { None })
        {
            flat.push((
                Line {
                    indent,
                    text: "-",
                    number: number + 1,
                },
                true,
            ));
            indent += 2 + (rest.len() - rest.trim_start().len());
            text = rest.trim_start();
            if text.is_empty() {
                break;
            }
        }
        if !text.is_empty() {
            flat.push((
                Line {
                    indent,
                    text,
                    number: number + 1,
                },
                false,
            ));
        }
    }
    let mut pos = 0;
    let indent = flat.first().map_or(0, |l| l.0.indent);
    let node = parse_block(&flat, &mut pos, indent)?;
    if pos != flat.len() {
        return Err(format!(
            "YAML line {}: unexpected text `{}`",
            flat[pos].0.number, flat[pos].0.text
        ));
    }
    Ok(node)
}

fn parse_block(lines: &[(Line<'_>, bool)], pos: &mut usize, indent: usize) -> Result<Node, String> {
    let Some((first, is_dash)) = lines.get(*pos) else {
        return Ok(Node::Scalar(Scalar::Plain(String::new())));
    };
    if first.indent != indent {
        return Err(format!(
            "YAML line {}: indentation {} where {indent} expected",
            first.number, first.indent
        ));
    }
    if *is_dash {
        let mut items = Vec::new();
        while let Some((l, dash)) = lines.get(*pos) {
            if l.indent != indent || !dash {
                break;
            }
            *pos += 1;
            match lines.get(*pos) {
                Some((next, _)) if next.indent > indent => {
                    let child_indent = next.indent;
                    items.push(parse_block(lines, pos, child_indent)?);
                }
                _ => items.push(Node::Scalar(Scalar::Plain(String::new()))),
            }
        }
        return Ok(Node::Seq(items));
    }
    if split_key(first.text).is_none() {
        // A lone scalar (a sequence item such as `- 1`).
        *pos += 1;
        return parse_scalar_or_flow(first.text)
            .map_err(|e| format!("YAML line {}: {e}", first.number));
    }
    let mut entries = Vec::new();
    while let Some((l, dash)) = lines.get(*pos) {
        if l.indent != indent || *dash {
            break;
        }
        let (key, value) = split_key(l.text)
            .ok_or_else(|| format!("YAML line {}: `{}` is not `key: value`", l.number, l.text))?;
        let key =
            match parse_scalar_or_flow(key).map_err(|e| format!("YAML line {}: {e}", l.number))? {
                Node::Scalar(s) => s.text().to_owned(),
                other => return Err(format!("YAML line {}: key is a {other}", l.number)),
            };
        *pos += 1;
        let node = if value.is_empty() {
            match lines.get(*pos) {
                // A block sequence may sit at the key's own indentation.
                Some((next, next_dash))
                    if next.indent > indent || (next.indent == indent && *next_dash) =>
                {
                    let child_indent = next.indent;
                    parse_block(lines, pos, child_indent)?
                }
                _ => Node::Scalar(Scalar::Plain(String::new())),
            }
        } else {
            parse_scalar_or_flow(value).map_err(|e| format!("YAML line {}: {e}", l.number))?
        };
        entries.push((key, node));
    }
    Ok(Node::Map(entries))
}

/// Splits `key: value` (or `key:`) at the first `: ` outside quotes.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let bytes = text.as_bytes();
    let mut i = 0;
    if let Some(&q @ (b'\'' | b'"')) = bytes.first() {
        // Quoted key: find the closing quote.
        i = 1;
        while i < bytes.len() {
            if bytes[i] == q {
                if q == b'\'' && bytes.get(i + 1) == Some(&b'\'') {
                    i += 2;
                    continue;
                }
                break;
            }
            if q == b'"' && bytes[i] == b'\\' {
                i += 1;
            }
            i += 1;
        }
    }
    while i < bytes.len() {
        if bytes[i] == b':' && (i + 1 == bytes.len() || bytes[i + 1] == b' ') {
            return Some((&text[..i], text[i + 1..].trim()));
        }
        i += 1;
    }
    None
}

fn parse_scalar_or_flow(text: &str) -> Result<Node, String> {
    match text {
        "[]" => return Ok(Node::Seq(Vec::new())),
        "{}" => return Ok(Node::Map(Vec::new())),
        _ => {}
    }
    if let Some(inner) = text.strip_prefix('\'') {
        let inner = inner
            .strip_suffix('\'')
            .ok_or_else(|| format!("unterminated quote in `{text}`"))?;
        return Ok(Node::Scalar(Scalar::Quoted(inner.replace("''", "'"))));
    }
    if let Some(inner) = text.strip_prefix('"') {
        let inner = inner
            .strip_suffix('"')
            .ok_or_else(|| format!("unterminated quote in `{text}`"))?;
        return Ok(Node::Scalar(Scalar::Quoted(unescape_double_quoted(inner)?)));
    }
    if text.starts_with('[') || text.starts_with('{') {
        return Err(format!(
            "flow collection `{text}` is not expected from LLVM"
        ));
    }
    Ok(Node::Scalar(Scalar::Plain(text.to_owned())))
}

fn unescape_double_quoted(s: &str) -> Result<String, String> {
    let mut out = String::new();
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next().ok_or("trailing backslash")?;
        let hex = |n: usize, chars: &mut std::str::Chars<'_>| -> Result<char, String> {
            let digits: String = chars.by_ref().take(n).collect();
            u32::from_str_radix(&digits, 16)
                .ok()
                .and_then(char::from_u32)
                .ok_or_else(|| format!("bad escape \\{e}{digits}"))
        };
        out.push(match e {
            'n' => '\n',
            't' => '\t',
            'r' => '\r',
            '0' => '\0',
            'a' => '\x07',
            'b' => '\x08',
            'e' => '\x1b',
            'f' => '\x0c',
            'v' => '\x0b',
            '"' => '"',
            '\\' => '\\',
            '/' => '/',
            ' ' => ' ',
            'x' => hex(2, &mut chars)?,
            'u' => hex(4, &mut chars)?,
            'U' => hex(8, &mut chars)?,
            other => return Err(format!("unknown escape \\{other}")),
        });
    }
    Ok(out)
}

/// One `.amdhsa_kernel NAME` block of `llvm-objdump-19`: the directives in
/// printed order; or the `; error decoding NAME.kd: why` line it prints
/// instead when it rejects the descriptor.
#[derive(Clone, Debug)]
pub struct ObjdumpKernel {
    /// The kernel name after `.amdhsa_kernel` (without `.kd`).
    pub name: String,
    /// Why objdump refused to decode the descriptor, if it did.
    pub error: Option<String>,
    /// `(.amdhsa_ directive, value)` as printed; fields printed as comments
    /// are named `; NAME`.
    pub directives: Vec<(String, i128)>,
}

/// The kernel descriptors of `kd_symbols` (`NAME.kd`) as `llvm-objdump-19`
/// disassembles them into `.amdhsa_` directives.
pub fn objdump_kernel_descriptors(file: &Path, kd_symbols: &[String]) -> Vec<ObjdumpKernel> {
    let mut kernels = Vec::new();
    // One argument must stay under the kernel's 128 KiB MAX_ARG_STRLEN.
    let mut chunk = String::new();
    let flush = |chunk: &mut String, kernels: &mut Vec<ObjdumpKernel>| {
        if chunk.is_empty() {
            return;
        }
        let arg = format!("--disassemble-symbols={chunk}");
        let text = run_llvm_tool("llvm-objdump-19", &["-D", &arg], file);
        kernels.extend(
            parse_objdump_kernels(&text).unwrap_or_else(|e| panic!("{}: {e}", file.display())),
        );
        chunk.clear();
    };
    for kd in kd_symbols {
        if chunk.len() + kd.len() > 60_000 {
            flush(&mut chunk, &mut kernels);
        }
        if !chunk.is_empty() {
            chunk.push(',');
        }
        chunk.push_str(kd);
    }
    flush(&mut chunk, &mut kernels);
    kernels
}

/// Parses the `.amdhsa_kernel` ... `.end_amdhsa_kernel` blocks of an
/// `llvm-objdump` disassembly.
pub fn parse_objdump_kernels(text: &str) -> Result<Vec<ObjdumpKernel>, String> {
    let mut kernels = Vec::new();
    let mut current: Option<ObjdumpKernel> = None;
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("; error decoding ") {
            if current.is_some() {
                return Err(format!(
                    "objdump line {}: error inside .amdhsa_kernel",
                    n + 1
                ));
            }
            let (symbol, why) = rest
                .split_once(": ")
                .ok_or_else(|| format!("objdump line {}: `{line}` names no symbol", n + 1))?;
            let name = symbol.strip_suffix(".kd").unwrap_or(symbol);
            kernels.push(ObjdumpKernel {
                name: name.to_owned(),
                error: Some(why.to_owned()),
                directives: Vec::new(),
            });
        } else if let Some(name) = line.strip_prefix(".amdhsa_kernel ") {
            if current.is_some() {
                return Err(format!("objdump line {}: nested .amdhsa_kernel", n + 1));
            }
            current = Some(ObjdumpKernel {
                name: name.trim().to_owned(),
                error: None,
                directives: Vec::new(),
            });
        } else if line == ".end_amdhsa_kernel" {
            kernels.push(
                current
                    .take()
                    .ok_or_else(|| format!("objdump line {}: stray .end_amdhsa_kernel", n + 1))?,
            );
        } else if let Some(k) = current.as_mut() {
            if line.is_empty() {
                continue;
            }
            // Fields without a directive are printed as `; NAME value`
            // comments; anything else after `;` (e.g. `; error decoding`) is
            // an error of the oracle, not something to skip.
            let (line, comment) = match line.strip_prefix("; ") {
                Some(rest) => (rest, true),
                None => (line, false),
            };
            let (name, value) = line.split_once(char::is_whitespace).ok_or_else(|| {
                format!("objdump line {}: `{line}` is not `.directive value`", n + 1)
            })?;
            let value = value.trim();
            let value = if let Some(hex) = value.strip_prefix("0x") {
                i128::from_str_radix(hex, 16)
            } else {
                value.parse()
            }
            .map_err(|_| format!("objdump line {}: `{value}` is not an integer", n + 1))?;
            let name = if comment {
                format!("; {name}")
            } else {
                name.to_owned()
            };
            k.directives.push((name, value));
        }
    }
    if let Some(k) = current {
        return Err(format!("objdump: .amdhsa_kernel {} has no end", k.name));
    }
    Ok(kernels)
}

#[cfg(test)]
mod self_test {
    use super::*;

    #[test]
    fn yaml_subset() {
        let text = "\
amdhsa.kernels:
  - .args:
      - .name:           'a''b'
        .size:           8
      - .offset: 8
    .language_version:
      - 2
      - 0
    .name:           \"k\\x41\"
    .empty: []
amdhsa.version:
- 1
- 2
";
        let lines: Vec<&str> = text.lines().collect();
        let node = parse_yaml(&lines).unwrap();
        let Node::Map(top) = &node else {
            panic!("{node:?}")
        };
        assert_eq!(top[0].0, "amdhsa.kernels");
        let Node::Seq(kernels) = &top[0].1 else {
            panic!()
        };
        let Node::Map(k) = &kernels[0] else { panic!() };
        assert_eq!(k[0].0, ".args");
        let Node::Seq(args) = &k[0].1 else { panic!() };
        assert_eq!(args.len(), 2);
        assert_eq!(
            args[0],
            Node::Map(vec![
                (".name".into(), Node::Scalar(Scalar::Quoted("a'b".into()))),
                (".size".into(), Node::Scalar(Scalar::Plain("8".into())))
            ])
        );
        assert_eq!(k[2].1, Node::Scalar(Scalar::Quoted("kA".into())));
        assert_eq!(k[3].1, Node::Seq(vec![]));
        assert_eq!(
            top[1].1,
            Node::Seq(vec![
                Node::Scalar(Scalar::Plain("1".into())),
                Node::Scalar(Scalar::Plain("2".into()))
            ])
        );
    }
}
