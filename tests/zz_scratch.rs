#![allow(clippy::unwrap_used)]
#[test]
fn show() {
    let cfg = std::fs::read_to_string("bench/config.json").unwrap();
    let g = openclaw_human_gate::gate::Gate::new(&cfg);
    for line in std::fs::read_to_string("bench/corpus.jsonl").unwrap().lines() {
        if ["AWS_SECRET", "base64 -d", "install.sh | sh", "chroot /host", "systemctl restart"].iter().any(|s| line.contains(s)) {
            println!("{}\n{}\n", line, g.decide_json(line));
        }
    }
}
