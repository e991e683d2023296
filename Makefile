# boothnet: `make setup` once (as root on Debian 12), then `make test`; `make demo` runs the main job.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
BIN := $(VENV)/bin
NET ?= sc-booth
TEST_WORKERS ?= $(shell nproc)
# The live tier: four workers, a module at a time each (the Batfish modules one after another),
# longest first; no two rate measurements at once (the machine's measurement turn, boothnet.locks).
# Most live tests wait rather than compute (docs/benchmarks.md).
LIVE_WORKERS ?= 4
BASE ?= HEAD
export PATH := $(CURDIR)/$(VENV)/bin:$(PATH)

# Every package the lab, the tests and the demo use: --no-install-recommends pulls no extras, so
# charon's openssl/gcm plugins (libstrongswan-standard-plugins) and Batfish's Java are named here.
DEBIAN_PACKAGES := frr frr-pythontools iperf3 nuttcp strongswan-charon strongswan-swanctl \
	libstrongswan-standard-plugins libcharon-extra-plugins nftables openssh-server openssh-client \
	iproute2 iputils-ping tcpdump procps psmisc python3-venv git openjdk-17-jre-headless \
	graphviz lldpd chromium prometheus arp-scan conntrack

.PHONY: setup apt venv test offline lint unit build verify acl-review deploy deploy-hw validate demo graph cabling cabling-check lab-up lab-down clab golden bench-scale clean watch \
	batfish-up batfish-down batfish-status doctor fuzz soak sanity docs docs-serve

setup: apt venv
	$(BIN)/boothnet doctor

apt:
	@if [ "$$(id -u)" != 0 ]; then echo "make setup installs Debian packages: run it as root" >&2; exit 1; fi
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $(DEBIAN_PACKAGES)
	# The lab starts its own daemons per namespace; the packaged services must not hold ports or state.
	-systemctl disable --now frr strongswan-starter strongswan ssh prometheus 2>/dev/null || true

venv:
	test -x $(PY) || python3 -m venv $(VENV)
	# uv (from PyPI, as pip) installs the same pinned set in 26 s where pip took 52 s here; compiled
	# now, as pip does, since a PYTHONDONTWRITEBYTECODE machine would compile them in every process
	$(BIN)/pip install -q uv==0.13.9
	$(BIN)/uv pip install -q --compile-bytecode --python $(PY) -r requirements.txt -e .
	# ansible-test (make sanity) bootstraps pip in its venvs with get-pip from a host these
	# machines cannot reach; ensurepip and the package index stand in (tests/sanity/get_pip.py).
	# 24_2: the pip version ansible-core 2.19's ansible-test asks for.
	install -D -m 644 tests/sanity/get_pip.py $(HOME)/.ansible/test/cache/get_pip_24_2.py

# Every program, kernel feature and daemon the lab needs, checked for real (a few seconds).
doctor:
	$(BIN)/boothnet doctor

# The guide (docs/, README's map): strict, so a broken link or anchor fails; build/site/index.html.
docs:
	$(BIN)/boothnet intent-reference > docs/intent-reference.md
	$(BIN)/mkdocs build --strict

docs-serve:
	$(BIN)/mkdocs serve --strict -a 127.0.0.1:8000

lint: sanity
	$(BIN)/ruff check src tests checks plugins bench
	$(BIN)/yamllint -s .
	$(BIN)/ansible-lint -q playbooks roles
	$(BIN)/lint-imports --no-cache
	$(BIN)/mypy --warn-unused-ignores

# Ansible's own sanity tests of the collection, as Galaxy's: module docs against argument specs,
# ansible-doc with nothing on stderr, action plugins documented, every file compiles. ansible-test
# runs in a folder named ansible_collections/boothnet/boothnet, so a copy of the tree goes in one.
# Its exceptions, each with its reason: tests/sanity/ignore-2.19.txt.
SANITY_TESTS := --test validate-modules --test ansible-doc --test action-plugin-docs --test compile
sanity:
	@copy=$$(mktemp -d) && trap 'rm -rf "$$copy"' EXIT && tree=$$copy/ansible_collections/boothnet/boothnet && \
	mkdir -p $$tree && git ls-files -co --exclude-standard | grep -v '^\.collections/' | tar -cf - -T - | \
	tar -xf - -C $$tree && cd $$tree && $(CURDIR)/$(BIN)/ansible-test sanity --color no \
	--python $$($(CURDIR)/$(PY) -c 'import sys; print("%d.%d" % sys.version_info[:2])') $(SANITY_TESTS)

unit:
	$(BIN)/pytest -q -m "not lab" tests checks

# Two tiers: the offline one (and nothing live) on every core at once; then the live one (labs,
# Batfish) alone, since its measurements and timeouts must not share the CPUs. Each prints its time.
# The linters run beside the offline tier (both only compute: the linters fill the cores the
# tier's last files leave idle), each one's output printed whole when it ends.
# compileall first: where PYTHONDONTWRITEBYTECODE is set (this machine), every process the suite
# starts (the CLI, the playbooks' modules, the lab's helpers) would compile boothnet again (0.15 s each).
# For the same reason the suite writes bytecode: each pytest process (every tier's controller and
# worker) would otherwise rewrite and compile every test module again (collection 5.5 -> 3.1 CPU-s)
test: export PYTHONDONTWRITEBYTECODE =
test:
	$(PY) -m compileall -q src
	$(MAKE) --no-print-directory -j 2 --output-sync=target lint offline
	$(BIN)/pytest -q -n $(LIVE_WORKERS) --dist loadgroup -m "(lab or batfish) and not soak" --durations=20 tests checks

offline:
	$(BIN)/pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not lab and not batfish" --durations=10 tests checks

# The longer live proofs `make test` leaves out, each one's verdict class proven live there too
# (docs/tests.md: "Which target runs what").
soak:
	$(BIN)/pytest -q -n $(LIVE_WORKERS) --dist loadgroup -m soak --durations=10 tests checks

build:
	$(BIN)/ansible-playbook -i inventories/$(NET) playbooks/build.yml

verify:
	$(BIN)/ansible-playbook -i inventories/$(NET) playbooks/verify.yml

# Security staff: flows the intent change since $(BASE) newly permits/denies; exit 3 = needs sign-off.
acl-review:
	$(BIN)/boothnet acl-review --network $(NET) --base $(BASE)

# Batfish: BATFISH_HOST if it answers, else BATFISH_JAR with java, else Docker (README: Batfish).
batfish-up:
	$(BIN)/boothnet batfish up

batfish-down:
	$(BIN)/boothnet batfish down

batfish-status:
	$(BIN)/boothnet batfish status

lab-up: doctor
	$(BIN)/ansible-playbook -i inventories/$(NET) playbooks/lab_up.yml $(if $(DAY0),-e boothnet_lab_configs=day0)

lab-down:
	$(BIN)/ansible-playbook -i inventories/$(NET) playbooks/lab_down.yml

# SESSIONS=list: open sessions the new policy denies are left and listed, not cut (docs/deploy.md)
deploy:
	$(BIN)/ansible-playbook -i build/$(NET)/lab/inventory.yml playbooks/deploy.yml $(if $(SESSIONS),-e boothnet_deploy_sessions=$(SESSIONS))

# The booth's own switches and routers (README: Deploy to hardware); CHECK=1 shows the diffs only;
# CHECK=1 OFFLINE=1 previews each switch's commands from its newest backup, without the switch.
deploy-hw:
	$(if $(and $(CHECK),$(OFFLINE)),$(BIN)/boothnet remediation --network $(NET),$(BIN)/ansible-playbook -i inventories/$(NET) playbooks/deploy.yml $(if $(CHECK),--check --diff) $(if $(SESSIONS),-e boothnet_deploy_sessions=$(SESSIONS)))

validate:
	$(BIN)/ansible-playbook -i inventories/$(NET) playbooks/validate.yml

# The booth's own network after deploy-hw (README: Validate the booth's own network); LAB=1: the
# running lab, reached only through its management network.
validate-hw:
	$(BIN)/boothnet validate-hw --network $(NET) $(if $(LAB),--lab) $(if $(NO_THROUGHPUT),--no-throughput)

demo:
	$(BIN)/boothnet demo --network $(NET)

# Show week: a light round every EVERY seconds (default 300) until Ctrl-C; the page and /metrics on
# 127.0.0.1:9477 (README: Watch the network during the show). LAB=1: the running lab.
watch:
	$(BIN)/boothnet watch --network $(NET) $(if $(LAB),--lab) $(if $(EVERY),--every $(EVERY)) $(if $(ON_ALARM),--on-alarm '$(ON_ALARM)')

# Booth day: the wiring diagram (build/$(NET)/graph) and the cabling sheet (build/$(NET)/cabling).
graph:
	$(BIN)/boothnet graph --network $(NET)

cabling:
	$(BIN)/boothnet cabling --network $(NET)

# Read-only: the booth's switches' LLDP neighbours against the intent (LAB=1: the lab's stand-ins).
cabling-check:
	$(BIN)/boothnet cabling-check --network $(NET) $(if $(LAB),--lab)

clab:
	$(BIN)/boothnet clab --network $(NET) $(if $(KINDS),--kinds $(KINDS))

# Both directions at full size: 10,000 mutated intents refused by name or built clean, 2,000
# generated valid intents built clean, 50 of them parsed by the live Batfish service, 3,000
# generated policies compiled as the intent (1,500 of them dual-stacked, IPv6 deciding as IPv4),
# 300 generated floors and 300 routers on a stick read back as their models (make test runs 300,
# 15, 3, 200, 100 and 10).
fuzz:
	BOOTHNET_FUZZ_EXAMPLES=$${BOOTHNET_FUZZ_EXAMPLES:-10000} BOOTHNET_VALID_EXAMPLES=$${BOOTHNET_VALID_EXAMPLES:-2000} \
	BOOTHNET_VALID_BATFISH_EXAMPLES=$${BOOTHNET_VALID_BATFISH_EXAMPLES:-50} \
	BOOTHNET_POLICY_EXAMPLES=$${BOOTHNET_POLICY_EXAMPLES:-3000} \
	BOOTHNET_POLICY_BATFISH_EXAMPLES=$${BOOTHNET_POLICY_BATFISH_EXAMPLES:-30} \
	BOOTHNET_DAY0_REPEATS=$${BOOTHNET_DAY0_REPEATS:-20} \
	BOOTHNET_READBACK_EXAMPLES=$${BOOTHNET_READBACK_EXAMPLES:-300} \
	$(BIN)/pytest -q -p no:cacheprovider tests/fuzz tests/unit/test_policy_property.py tests/unit/test_family_parity.py \
	tests/unit/test_readback.py \
	tests/integration/policy/test_policy_batfish.py \
	tests/integration/deploy/test_day0_adjacencies.py::test_day0_deploy_brings_ospf_up_on_every_interface_its_config_names

golden:
	$(PY) tests/golden/regenerate.py

# Show-floor scale benchmarks (docs/benchmarks.md): build, naive and verify at 50/200/500 devices,
# then the 200-node netns lab (root only). Results in bench/results/scale_*.json.
bench-scale:
	$(PY) bench/scale_build.py
	@if [ "$$(id -u)" = 0 ]; then $(PY) bench/scale_lab.py; else echo "bench/scale_lab.py needs root: skipped"; fi

clean:
	rm -rf build
