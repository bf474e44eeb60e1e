#!/usr/bin/env bash
# Text files as people write them, end to end on the real SD2011 survey (tests/data/sd2011): the
# European CSV version (semicolons, decimal commas, Windows-1252, CRLF, as Excel writes it in a
# European locale) gives the same results.tsv as the plain CSV, with the flags and, detected,
# without them (then with one warning saying what was assumed); read with a decimal point given,
# its decimal column is named in a warning. SD2011's columns are whole numbers, so both versions
# get a decimal column, income in thousands (a derived column: a decimal comma needs decimals),
# and a marital level with an accent (SD2011's levels are ASCII: the encoding needs one that is
# not).
#
# Usage: SYNTHAUDIT=build/synthaudit bash tests/cli/european_csv.sh tests/data/sd2011
set -u
BIN=${SYNTHAUDIT:?set SYNTHAUDIT to the synthaudit binary}
SD=${1:?give the SD2011 folder (tests/data/sd2011) as the first argument}
SD=$(cd "$SD" && pwd)
WORK=$(mktemp -d "${TMPDIR:-/tmp}/synthaudit-european.XXXXXX")
trap 'rm -rf "$WORK"' EXIT

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "ok    $1"; }
fail() { failed=$((failed + 1)); echo "FAIL  $1: $2"; }
expect() {
  local name=$1 what=$2
  shift 2
  if "$@"; then pass "$name: $what"; else fail "$name" "$what"; fi
}

# Python's csv module writes both versions; the European one as Excel does (minimal quoting).
/usr/bin/python3 - "$SD" "$WORK" <<'PY'
import csv, sys
sd, work = sys.argv[1], sys.argv[2]
for name in ["train", "train_syn", "holdout"]:
    with open(f"{sd}/{name}.csv", newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    header, body = rows[0], rows[1:]
    income = header.index("income")
    header = header + ["income_k"]
    body = [r + [repr(int(r[income]) / 1000) if r[income] not in ("", "NA") else "NA"] for r in body]
    # A level with a letter outside ASCII, so the encoding matters (é is 0xE9 in Windows-1252).
    body = [[v.replace("SINGLE", "SINGLE (célibataire)") for v in r] for r in body]
    with open(f"{work}/{name}.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + body)
    european = [[v.replace(".", ",") if v.replace(".", "").replace("-", "").isdigit() else v
                 for v in r] for r in body]
    with open(f"{work}/{name}_eu.csv", "w", newline="", encoding="cp1252") as f:
        csv.writer(f, delimiter=";", lineterminator="\r\n").writerows([header] + european)
PY
[ -s "$WORK/train_eu.csv" ] || { echo "FAIL  could not write the European files"; exit 1; }
grep -q ';0,8;\|;-0,008' "$WORK/train_eu.csv" || fail setup "no decimal comma in the European file"
grep -q "$(printf 'c\xe9libataire')" "$WORK/train_eu.csv" || fail setup "no Windows-1252 letter in the European file"

METRICS=ks_distance,total_variation,table_utility,correlation_fit,propensity_logistic,synthpop_disclosure,distance_to_closest_record,column_summaries
run() {
  local name=$1 suffix=$2
  shift 2
  "$BIN" evaluate --quiet --baseline-draws 2 --seed 7 --out "$WORK/$name" --metrics "$METRICS" \
    --confidential "$WORK/train$suffix.csv" --synthetic cart="$WORK/train_syn$suffix.csv" \
    --holdout "$WORK/holdout$suffix.csv" --missing-codes income=-8,income_k=-0.008 \
    --keys sex,age,edu,marital --targets smoke "$@" \
    >"$WORK/$name.stdout" 2>"$WORK/$name.stderr"
  local rc=$?
  if [ "$rc" -ne 0 ] && [ "$rc" -ne 3 ]; then
    fail "$name" "exit code $rc: $(head -c 400 "$WORK/$name.stderr")"
    return 1
  fi
}
same_results() { cmp -s "$WORK/plain/results.tsv" "$WORK/$1/results.tsv"; }
# results.tsv names the files; the European ones differ only by "_eu".
normalise() { sed 's/_eu\.csv/.csv/g' "$WORK/$1/results.tsv" >"$WORK/$1/results.normalised.tsv"; }
same_normalised() { normalise "$1" && cmp -s "$WORK/plain/results.tsv" "$WORK/$1/results.normalised.tsv"; }
warnings() { grep -c '^synthaudit: warning: ' "$WORK/$1.stderr"; }

run plain "" || { # sdc writes the remediated file back in the synthetic file's layout (semicolons, decimal commas).
"$BIN" sdc --confidential "$WORK/train_eu.csv" --synthetic "$WORK/train_syn_eu.csv" --encoding latin1 \
  --missing-codes income=-8,income_k=-0.008 --top-code income_k=0.9 --out "$WORK/sdc" \
  >"$WORK/sdc.stdout" 2>"$WORK/sdc.stderr"
expect sdc "exit code 0" test $? -eq 0
"$BIN" sdc --confidential "$WORK/train.csv" --synthetic "$WORK/train_syn.csv" \
  --missing-codes income=-8,income_k=-0.008 --top-code income_k=0.9 --out "$WORK/sdc_plain" >/dev/null 2>&1
expect sdc "both remediated files written" test -s "$WORK/sdc/train_syn_eu.csv" -a -s "$WORK/sdc_plain/train_syn.csv"
expect sdc "the remediated file is the plain one's in the European layout" \
  cmp -s <(tr ';' '|' <"$WORK/sdc/train_syn_eu.csv" | tr ',' '.') \
  <(/usr/bin/python3 -c "import csv,sys; [print('|'.join(r)) for r in csv.reader(open(sys.argv[1]))]" "$WORK/sdc_plain/train_syn.csv")
expect sdc "the log says what was detected" grep -q "^warning: .*train_syn_eu.csv: read as semicolon-separated with a decimal comma" "$WORK/sdc/sdc_log.txt"

echo "$passed passed, $failed failed"; exit 1; }
[ "$(wc -l <"$WORK/plain/results.tsv")" -gt 50 ] || fail plain "results.tsv has too few rows"
expect plain "income_k is numeric" grep -q '"name": "income_k"' "$WORK/plain/results.json"
# Warnings about the data itself (the data checks) are the same in every run.
base=$(warnings plain)

if run flags _eu --delimiter ';' --decimal , --encoding latin1; then
  expect flags "results.tsv identical to the plain CSV's" same_normalised flags
  expect flags "no warning about the layout" test "$(warnings flags)" -eq "$base"
fi

if run detected _eu --encoding windows-1252; then
  expect detected "results.tsv identical to the plain CSV's" same_normalised detected
  expect detected "one warning more" test "$(warnings detected)" -eq $((base + 1))
  expect detected "the warning names the files, what was assumed and the flags" \
    grep -q "^synthaudit: warning: $WORK/train_eu.csv, $WORK/train_syn_eu.csv, $WORK/holdout_eu.csv: read as semicolon-separated with a decimal comma (detected; say otherwise with --delimiter and --decimal" "$WORK/detected.stderr"
  expect detected "the warning is in results.json" grep -q 'read as semicolon-separated with a decimal comma' "$WORK/detected/results.json"
fi

# Without the encoding: a one-line error naming the file and the flag.
"$BIN" evaluate --quiet --out "$WORK/latin" --confidential "$WORK/train_eu.csv" \
  --synthetic cart="$WORK/train_syn_eu.csv" --metrics column_summaries >/dev/null 2>"$WORK/latin.stderr"
rc=$?
expect latin1 "exit code 2" test "$rc" -eq 2
expect latin1 "one line naming the file and --encoding latin1" \
  test "$(wc -l <"$WORK/latin.stderr")" -eq 1 -a -n "$(grep "train_eu.csv: row .*--encoding latin1" "$WORK/latin.stderr")"

# A decimal point given for a decimal-comma file: income_k is text, and a warning says so.
if run point _eu --delimiter ';' --decimal . --encoding latin1; then
  expect point "income_k named in a warning with --decimal ," \
    grep -q "^synthaudit: warning: $WORK/train_eu.csv: column 'income_k' is read as categorical, but [0-9]* of its [0-9]* levels are numbers with a decimal comma; if the file writes decimals with a comma, give --decimal ," "$WORK/point.stderr"
fi

# init writes the layout it read into the starter spec.
"$BIN" init "$WORK/train_eu.csv" --encoding latin1 >"$WORK/init.yaml" 2>"$WORK/init.stderr"
expect init "the starter spec has the detected read: block" \
  grep -q '^  delimiter: ";"' "$WORK/init.yaml"
expect init "and the decimal comma" grep -q '^  decimal: ","' "$WORK/init.yaml"
expect init "and the encoding" grep -q '^  encoding: windows-1252' "$WORK/init.yaml"
expect init "income_k inferred numeric" grep -q '^  income_k: numeric' "$WORK/init.yaml"

# sdc writes the remediated file back in the synthetic file's layout (semicolons, decimal commas).
"$BIN" sdc --confidential "$WORK/train_eu.csv" --synthetic "$WORK/train_syn_eu.csv" --encoding latin1 \
  --missing-codes income=-8,income_k=-0.008 --top-code income_k=0.9 --out "$WORK/sdc" \
  >"$WORK/sdc.stdout" 2>"$WORK/sdc.stderr"
expect sdc "exit code 0" test $? -eq 0
"$BIN" sdc --confidential "$WORK/train.csv" --synthetic "$WORK/train_syn.csv" \
  --missing-codes income=-8,income_k=-0.008 --top-code income_k=0.9 --out "$WORK/sdc_plain" >/dev/null 2>&1
expect sdc "both remediated files written" test -s "$WORK/sdc/train_syn_eu.csv" -a -s "$WORK/sdc_plain/train_syn.csv"
expect sdc "the remediated file is the plain one's in the European layout" \
  cmp -s <(tr ';' '|' <"$WORK/sdc/train_syn_eu.csv" | tr ',' '.') \
  <(/usr/bin/python3 -c "import csv,sys; [print('|'.join(r)) for r in csv.reader(open(sys.argv[1]))]" "$WORK/sdc_plain/train_syn.csv")
expect sdc "the log says what was detected" grep -q "^warning: .*train_syn_eu.csv: read as semicolon-separated with a decimal comma" "$WORK/sdc/sdc_log.txt"

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
