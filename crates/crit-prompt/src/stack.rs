//! What a project is built with, from its manifests: package.json and
//! tsconfig.json, pyproject.toml / setup.py / requirements.txt, go.mod,
//! Cargo.toml. Reads only those files, inside the project root.
//!
//! The TOML files are read with a small scanner (tables, `key = value`, string
//! arrays), enough for names, dependencies and build backends; a file it cannot
//! make sense of still says which language the project uses.

use std::path::Path;

use serde_json::Value;

use crit_project::context::walk::{Read, read_confined};

/// What the manifests say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Detected {
    pub name: Option<String>,
    /// Lower case, in detection order, no duplicates.
    pub stack: Vec<String>,
    pub test_framework: Option<String>,
    pub build_tool: Option<String>,
    /// tsconfig.json's `compilerOptions.target`.
    pub compiler_target: Option<String>,
}

impl Detected {
    fn add(&mut self, s: &str) {
        if !self.stack.iter().any(|x| x == s) {
            self.stack.push(s.to_string());
        }
    }
}

/// `root` must be canonical. `package_json: false` skips package.json (the
/// plugin's `include_package_json`).
pub fn detect(root: &Path, package_json: bool) -> Detected {
    let read = |rel: &str| match read_confined(root, rel) {
        Read::Text { text, .. } => Some(text),
        _ => None,
    };
    let mut d = Detected::default();
    if package_json && let Some(text) = read("package.json") {
        node(&text, &mut d);
    }
    if let Some(text) = read("tsconfig.json") {
        d.add("typescript");
        d.compiler_target = jsonc(&text).and_then(|v| {
            v.pointer("/compilerOptions/target")
                .and_then(Value::as_str)
                .map(str::to_string)
        });
    }
    if let Some(text) = read("pyproject.toml") {
        python(&toml(&text), &mut d);
    }
    for (file, tool) in [("setup.py", "setuptools"), ("requirements.txt", "pip")] {
        if read(file).is_some() {
            d.add("python");
            d.build_tool.get_or_insert_with(|| tool.to_string());
        }
    }
    if let Some(text) = read("go.mod") {
        d.add("go");
        let module = text
            .lines()
            .find_map(|l| l.trim().strip_prefix("module "))
            .map(|m| m.trim().trim_matches('"'));
        if let Some(m) = module.and_then(|m| m.rsplit('/').next()) {
            d.name.get_or_insert_with(|| m.to_string());
        }
        d.test_framework.get_or_insert_with(|| "go test".into());
        d.build_tool.get_or_insert_with(|| "go".into());
    }
    if let Some(text) = read("Cargo.toml") {
        rust(&toml(&text), &mut d);
    }
    d
}

/// package.json: node, TypeScript and the frameworks its dependencies name.
fn node(text: &str, d: &mut Detected) {
    d.add("node");
    let Ok(v) = serde_json::from_str::<Value>(text) else {
        return;
    };
    if let Some(n) = v
        .get("name")
        .and_then(Value::as_str)
        .filter(|n| !n.is_empty())
    {
        d.name = Some(n.to_string());
    }
    let mut deps: Vec<&str> = Vec::new();
    for key in ["dependencies", "devDependencies", "peerDependencies"] {
        if let Some(map) = v.get(key).and_then(Value::as_object) {
            deps.extend(map.keys().map(String::as_str));
        }
    }
    let has = |name: &str| deps.contains(&name);
    if has("typescript") {
        d.add("typescript");
    }
    for (dep, marker) in [
        ("react", "react"),
        ("vue", "vue"),
        ("svelte", "svelte"),
        ("next", "nextjs"),
        ("@angular/core", "angular"),
        ("tailwindcss", "tailwind"),
        ("obsidian", "obsidian-plugin"),
        ("electron", "electron"),
        ("express", "express"),
    ] {
        if has(dep) {
            d.add(marker);
        }
    }
    let script = |name: &str| {
        v.pointer(&format!("/scripts/{name}"))
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    const TESTS: [(&str, &str); 6] = [
        ("vitest", "vitest"),
        ("jest", "jest"),
        ("mocha", "mocha"),
        ("ava", "ava"),
        ("@playwright/test", "playwright"),
        ("cypress", "cypress"),
    ];
    let test_script = script("test");
    d.test_framework = TESTS
        .iter()
        .find(|(dep, word)| has(dep) || test_script.contains(word))
        .map(|(_, word)| word.to_string());
    const BUILDS: [&str; 7] = [
        "esbuild", "vite", "webpack", "rollup", "tsup", "parcel", "turbo",
    ];
    let build_script = script("build");
    d.build_tool = BUILDS
        .iter()
        .find(|b| has(b) || build_script.contains(*b))
        .map(|b| b.to_string());
    if let Some(b) = &d.build_tool {
        let b = b.clone();
        d.add(&b);
    }
}

fn python(t: &Toml, d: &mut Detected) {
    d.add("python");
    if let Some(n) = t
        .string("project", "name")
        .or_else(|| t.string("tool.poetry", "name"))
    {
        d.name.get_or_insert(n);
    }
    let deps = t.dependencies();
    for framework in ["fastapi", "django", "flask", "pydantic"] {
        if deps.iter().any(|x| x == framework) {
            d.add(framework);
        }
    }
    if deps.iter().any(|x| x == "pytest") || t.has_table("tool.pytest.ini_options") {
        d.test_framework = Some("pytest".into());
    }
    let backend = t
        .string("build-system", "build-backend")
        .unwrap_or_default();
    let tool = [
        ("poetry", "poetry"),
        ("hatch", "hatch"),
        ("pdm", "pdm"),
        ("flit", "flit"),
        ("maturin", "maturin"),
        ("setuptools", "setuptools"),
        ("uv", "uv"),
    ]
    .iter()
    .find(|(needle, _)| backend.contains(needle))
    .map(|(_, tool)| tool.to_string())
    .or_else(|| t.has_table("tool.poetry").then(|| "poetry".into()))
    .or_else(|| t.has_table("tool.uv").then(|| "uv".into()));
    if tool.is_some() {
        d.build_tool = tool;
    }
}

fn rust(t: &Toml, d: &mut Detected) {
    d.add("rust");
    if let Some(n) = t.string("package", "name") {
        d.name.get_or_insert(n);
    }
    let deps = t.dependencies();
    for framework in [
        "tokio",
        "axum",
        "actix-web",
        "leptos",
        "yew",
        "bevy",
        "clap",
    ] {
        if deps.iter().any(|x| x == framework) {
            d.add(framework);
        }
    }
    d.test_framework.get_or_insert_with(|| "cargo test".into());
    d.build_tool.get_or_insert_with(|| "cargo".into());
}

/// tsconfig.json allows comments and trailing commas; drop them, then parse.
fn jsonc(text: &str) -> Option<Value> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    let mut in_string = false;
    while let Some(c) = chars.next() {
        if in_string {
            out.push(c);
            if c == '\\' {
                if let Some(n) = chars.next() {
                    out.push(n);
                }
            } else if c == '"' {
                in_string = false;
            }
            continue;
        }
        match (c, chars.peek()) {
            ('"', _) => {
                in_string = true;
                out.push(c);
            }
            ('/', Some('/')) => {
                for n in chars.by_ref() {
                    if n == '\n' {
                        out.push('\n');
                        break;
                    }
                }
            }
            ('/', Some('*')) => {
                chars.next();
                let mut prev = ' ';
                for n in chars.by_ref() {
                    if prev == '*' && n == '/' {
                        break;
                    }
                    prev = n;
                }
            }
            _ => out.push(c),
        }
    }
    let no_trailing = regex::Regex::new(r",(\s*[}\]])")
        .ok()?
        .replace_all(&out, "$1")
        .into_owned();
    serde_json::from_str(&no_trailing).ok()
}

/// The parts of a TOML file stack detection needs.
#[derive(Debug, Default)]
struct Toml {
    /// (table, key, value) in file order; a value is a string, or the strings of an array.
    entries: Vec<(String, String, Vec<String>)>,
    tables: Vec<String>,
}

impl Toml {
    fn string(&self, table: &str, key: &str) -> Option<String> {
        self.entries
            .iter()
            .find(|(t, k, _)| t == table && k == key)
            .and_then(|(_, _, v)| v.first().cloned())
    }

    fn has_table(&self, table: &str) -> bool {
        self.tables
            .iter()
            .any(|t| t == table || t.starts_with(&format!("{table}.")))
    }

    /// Package names from dependency tables (their keys) and PEP 621 arrays
    /// (`"fastapi>=0.110"` → `fastapi`), lower case.
    fn dependencies(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (table, key, values) in &self.entries {
            let dep_table = table.ends_with("dependencies")
                || table.contains("dependencies.")
                || table.ends_with("dependency-groups");
            if dep_table {
                out.push(key.to_lowercase());
            }
            if key.ends_with("dependencies") || dep_table {
                out.extend(values.iter().map(|v| {
                    v.split(|c: char| !(c.is_alphanumeric() || c == '-' || c == '_' || c == '.'))
                        .next()
                        .unwrap_or("")
                        .to_lowercase()
                }));
            }
        }
        out.retain(|d| !d.is_empty());
        out
    }
}

fn toml(text: &str) -> Toml {
    let mut t = Toml::default();
    let mut table = String::new();
    let mut lines = text.lines();
    while let Some(line) = lines.next() {
        let line = strip_comment(line);
        let line = line.trim();
        if let Some(h) = line.strip_prefix('[') {
            table = h
                .trim_start_matches('[')
                .trim_end_matches(']')
                .trim()
                .to_string();
            t.tables.push(table.clone());
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        let key = key.trim().trim_matches('"').to_string();
        let mut value = value.trim().to_string();
        if value.starts_with('[') {
            while !balanced(&value) {
                let Some(next) = lines.next() else { break };
                value.push(' ');
                value.push_str(strip_comment(next).trim());
            }
        }
        t.entries.push((table.clone(), key, quoted_strings(&value)));
    }
    t
}

fn strip_comment(line: &str) -> &str {
    let mut in_string: Option<char> = None;
    for (i, c) in line.char_indices() {
        match (in_string, c) {
            (None, '"' | '\'') => in_string = Some(c),
            (Some(q), c) if c == q => in_string = None,
            (None, '#') => return &line[..i],
            _ => {}
        }
    }
    line
}

fn balanced(value: &str) -> bool {
    value.matches('[').count() <= value.matches(']').count()
}

/// Every `"…"` or `'…'` string in `value`, in order.
fn quoted_strings(value: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c == '"' || c == '\'' {
            let s: String = chars.by_ref().take_while(|x| *x != c).collect();
            out.push(s);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_scanner() {
        let t = toml(
            "[project]\nname = \"svc\" # comment\ndependencies = [\n  \"FastAPI>=0.110\",\n  'pydantic',\n]\n[tool.poetry.dev-dependencies]\npytest = \"^8\"\n[build-system]\nbuild-backend = \"hatchling.build\"\n",
        );
        assert_eq!(t.string("project", "name").as_deref(), Some("svc"));
        assert_eq!(t.dependencies(), ["fastapi", "pydantic", "pytest"]);
        assert_eq!(
            t.string("build-system", "build-backend").as_deref(),
            Some("hatchling.build")
        );
    }

    #[test]
    fn jsonc_with_comments_and_trailing_commas() {
        let v = jsonc("{\n // c\n \"compilerOptions\": {\"target\": \"ES2022\", /* x */ \"url\": \"http://a\",},\n}").unwrap();
        assert_eq!(v["compilerOptions"]["target"], "ES2022");
        assert_eq!(v["compilerOptions"]["url"], "http://a");
    }
}
