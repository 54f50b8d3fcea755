//! scbench's Rust driver: uses the generated crate dynamic_rs_buffer on a data file and prints each row as one
//! JSON line, numbers written as text rounded to 6 decimal places (a whole number without decimals).
use dynamic_rs_buffer::api::{DynamicPreprocessor, Value};

fn quoted(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn number(value: f64) -> String {
    let rounded = (value * 1e6).round() / 1e6;
    if rounded == rounded.trunc() {
        return format!("{}", rounded as i64);
    }
    let text = format!("{:.6}", rounded);
    text.trim_end_matches('0').to_string()
}

fn shown(value: &Value) -> String {
    match value {
        Value::Null => "null".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Int(i) => quoted(&i.to_string()),
        Value::Float(f) => quoted(&number(*f)),
        Value::Str(s) => quoted(s),
    }
}

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    let (mut data, mut buffer, mut cache_dir, mut stop_after) = (String::new(), 1024usize, None, usize::MAX);
    let mut i = 0;
    while i < argv.len() {
        match argv[i].as_str() {
            "--buffer" => { i += 1; buffer = argv[i].parse().expect("--buffer N"); }
            "--cache_dir" => { i += 1; cache_dir = Some(argv[i].clone()); }
            "--stop_after" => { i += 1; stop_after = argv[i].parse().expect("--stop_after N"); }
            other => data = other.to_string(),
        }
        i += 1;
    }
    let mut preprocessor = DynamicPreprocessor::new(buffer, cache_dir.as_deref());
    preprocessor.open(&data).expect("the data file opens");
    for row in preprocessor.take(stop_after) {
        let cells: Vec<String> = row.iter().map(|(k, v)| format!("{}: {}", quoted(k), shown(v))).collect();
        println!("{{{}}}", cells.join(", "));
    }
}
