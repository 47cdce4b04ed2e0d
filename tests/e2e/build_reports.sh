#!/bin/bash
# --report FILE (JSON) and --junit FILE for CI (issue 15 item 4;
# docs/reports.md): every kernel x target with its status, verdict, errors,
# timings, artifact hash, route and cache use; in JUnit, NOT_RUN is
# <skipped>, FAIL <failure>, a compile error <error>, and PASS_EMULATED is
# labelled as such by a verdict property (the test name is the target
# whatever the verdict). Both are written when the build fails, too.
# usage: build_reports.sh TESSERAC SOURCE_DIR BUILD_DIR   (exit 77: skipped)
set -u
tesserac=$1; src=$2
"$tesserac" targets 2> /dev/null | grep -A1 '^x86:v2$' | grep -q 'toolchain: /' \
  || { echo "SKIP: no x86 toolchain (tesserac targets)"; exit 77; }
. "$src/tests/e2e/lib/checks.bash"   # cd's into a scratch directory
a=$src/specs/ew_add_f32.yaml
check() {  # check NAME PYTHON-ASSERTIONS (r: the report or the XML root)
  if python3 -c "$2" 2> py.err; then ok "$1"; else bad "$1"; sed 's/^/     /' py.err | tail -5; fi
}

expect "build --report --junit" 0 "" "$tesserac" build "$a" -t x86:v2,x86:v3 --no-cache -o a.tfat --report r.json --junit j.xml
check "report: one result per kernel x target, every field" "
import json, hashlib, subprocess
r = json.load(open('r.json'))
assert r['command'] == 'build' and r['jobs'] >= 1 and r['cache']['enabled'] is False, r
assert r['summary'] == {'passed': 2, 'passed_emulated': 0, 'failed': 0, 'not_run': 0, 'compile_failed': 0}, r['summary']
assert [(x['kernel'], x['target']) for x in r['results']] == [('ew_add_f32', 'x86:v2'), ('ew_add_f32', 'x86:v3')]
for x in r['results']:
    assert x['status'] == 'ok' and x['verdict'] == 'PASS' and x['error'] == '', x
    assert x['compile_ms'] > 0 and x['oracle_ms'] > 0, x
    assert len(x['artifact_sha256']) == 64 and len(x['artifact_key']) == 64, x
    assert x['route'].startswith('libtesserart '), x
    assert x['artifact_cache_hit'] is False and x['verdict_cache_hit'] is False, x
# The hash is the shipped bytes': inspect --json names the same blob SHA-256.
ins = json.loads(subprocess.run(['$tesserac', 'inspect', '--json', 'a.tfat'], capture_output=True, text=True).stdout)
blobs = sorted(v['sha256'] for k in ins['kernels'] for v in k['variants'])
assert blobs == sorted(x['artifact_sha256'] for x in r['results']), (blobs, r['results'])
"
check "junit: two passing test cases" "
import xml.etree.ElementTree as ET
root = ET.parse('j.xml').getroot()
assert root.tag == 'testsuites' and root.get('tests') == '2' and root.get('failures') == '0', root.attrib
cases = root.findall('./testsuite/testcase')
assert [(c.get('classname'), c.get('name')) for c in cases] == [('ew_add_f32', 'x86:v2'), ('ew_add_f32', 'x86:v3')]
assert all(c.find('skipped') is None and c.find('failure') is None for c in cases)
assert all(c.find('./properties/property[@name=\"verdict\"]').get('value') == 'PASS' for c in cases)
"

# NOT_RUN (no GPU: cuda without --emulate) is skipped; emulated is labelled.
expect "test with a cuda target, no device" 0 "" "$tesserac" test "$a" -t x86:v2,cuda:sm_80 --no-cache --junit n.xml --report n.json
check "junit: NOT_RUN is <skipped> with the reason" "
import xml.etree.ElementTree as ET, json
root = ET.parse('n.xml').getroot()
cases = {c.get('name'): c for c in root.iter('testcase')}
assert root.get('skipped') == '1', root.attrib
s = cases['cuda:sm_80'].find('skipped')
assert s is not None and s.get('message').startswith('NOT_RUN: '), s
assert cases['x86:v2'].find('skipped') is None
r = json.load(open('n.json'))
assert r['command'] == 'test' and [x['verdict'] for x in r['results']] == ['PASS', 'NOT_RUN'], r['results']
"
if "$tesserac" targets 2> /dev/null | grep -q '^cuda:sm_80$'; then
  expect "test --emulate" 0 "" "$tesserac" test "$a" -t cuda:sm_80 --emulate --no-cache --junit e.xml --report e.json
  check "junit: PASS_EMULATED is labelled by its property, under the same test name as NOT_RUN" "
import xml.etree.ElementTree as ET, json
c = ET.parse('e.xml').getroot().find('./testsuite/testcase')
# The same test name as the NOT_RUN case above: CI keeps one history per
# kernel x target whatever the verdict; the verdict is the property.
assert (c.get('classname'), c.get('name')) == ('ew_add_f32', 'cuda:sm_80'), c.attrib
n = {x.get('name'): x for x in ET.parse('n.xml').getroot().iter('testcase')}['cuda:sm_80']
assert (n.get('classname'), n.get('name')) == (c.get('classname'), c.get('name')), (n.attrib, c.attrib)
assert n.find('./properties/property[@name=\"verdict\"]').get('value') == 'NOT_RUN'
assert c.find('skipped') is None and c.find('failure') is None
assert c.find('./properties/property[@name=\"verdict\"]').get('value') == 'PASS_EMULATED'
assert 'emulated on the CPU' in c.find('system-out').text
assert json.load(open('e.json'))['summary']['passed_emulated'] == 1
"
fi

# FAIL and a compile error: the reports are written although the build fails.
sed -e 's/kernel: gemm_f32/kernel: gemm_zero_budget/' -e 's/{kind: reference_exact}/{kind: tolerance_bounded, atol: 0, rtol: 0}/' \
  "$src/specs/gemm_f32.yaml" > zero.yaml
expect "a FAIL" 1 "tesserac: error: oracle FAIL for gemm_zero_budget on x86:v2; nothing written" \
  "$tesserac" build zero.yaml -t x86:v2 --no-cache -o f.tfat --junit f.xml --report f.json
check "junit: FAIL is <failure> with the oracle's reason; report says failed" "
import xml.etree.ElementTree as ET, json
root = ET.parse('f.xml').getroot()
f = root.find('./testsuite/testcase/failure')
assert root.get('failures') == '1' and f is not None and f.get('message') == 'FAIL' and 'trial' in f.text, f
r = json.load(open('f.json'))
assert r['summary']['failed'] == 1 and r['results'][0]['verdict'] == 'FAIL' and r['results'][0]['reason'], r
"
cat > fakeclang << 'EOF'
#!/bin/sh
# A clang that knows its version and fails every compile.
[ "$1" = --version ] && { echo "fake clang version 1.0"; exit 0; }
echo "fakeclang: error: refusing to compile" >&2; exit 1
EOF
chmod +x fakeclang
TESSERAC_CLANG=$work/fakeclang "$tesserac" build "$a" -t x86:v2 --no-cache -o c.tfat --junit c.xml --report c.json > out.txt 2> err.txt
rc=$?
[ $rc = 3 ] && ok "a compile error exits 3" || bad "compile error exit $rc"
check "junit: a compile error is <error> with clang's message; report: compile_failed" "
import xml.etree.ElementTree as ET, json
root = ET.parse('c.xml').getroot()
e = root.find('./testsuite/testcase/error')
assert root.get('errors') == '1' and e is not None and 'refusing to compile' in e.text, ET.tostring(root)
x = json.load(open('c.json'))['results'][0]
assert x['status'] == 'compile_failed' and 'refusing to compile' in x['error'] and x['artifact_sha256'] == '', x
"
expect "--report onto an input is refused" 2 "tesserac: error: --report '$a' is the same file as the input spec '$a' (an output must not overwrite an input)" \
  "$tesserac" build "$a" -t x86:v2 -o x.tfat --report "$a"
finish
