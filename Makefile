# csreg — build, test and run. `make help` lists the targets.
#
# Layout: engine/ (libcsreg.a, the numerical engine: base/ reg/ opt/
# recovery/ nn/), plots/ (gnuplot), sessions/ (command language), ui/ (REPL,
# TUI, main), tests/ (cmocka).
# Two build variants share these rules: VARIANT=rel (optimized, the ./csreg
# program) and VARIANT=asan (AddressSanitizer + UBSan, run by `make test`).

VARIANT ?= rel
BUILD_ROOT ?= build
BUILD   := $(BUILD_ROOT)/$(VARIANT)
CC      ?= cc
ifeq ($(origin CC),default)
CC      := gcc
endif

# Debian packages the build, the tests and the workbench need.
DEB_PKGS := gcc make pkg-config libopenblas-dev liblapacke-dev libncurses-dev \
            libreadline-dev libcmocka-dev zlib1g-dev libsleef-dev gnuplot-nox tmux \
            dataset-fashion-mnist libopenmpi-dev openmpi-bin \
            python3-numpy python3-torch python3-pytest python3-onnx clang libmatio-dev \
            libdouble-conversion-dev

PKGS      := openblas lapacke readline ncursesw zlib sleef double-conversion
# Recursive (=) so pkg-config runs after `deps` installed the .pc files.
PKG_CFLAGS = $(shell pkg-config --cflags $(PKGS) 2>/dev/null)
PKG_LIBS   = $(shell pkg-config --libs $(PKGS) 2>/dev/null)
CMOCKA_LIBS = $(shell pkg-config --libs cmocka 2>/dev/null)
# Checked before a build compiles anything: without them the first error
# would be a compiler's about a missing header or function.
need_pkgs = @m=""; for p in $(PKGS) cmocka; do pkg-config --exists $$p 2>/dev/null || m="$$m $$p"; done; \
  [ -z "$$m" ] || { echo "missing libraries:$$m: run make deps (or make run / make test)"; exit 1; }
# make test and make check build with every core unless -j was given
NPROC := $(shell nproc 2>/dev/null || echo 1)
SUBJ = $(if $(filter -j%,$(MAKEFLAGS)),,-j$(NPROC))

WARN    := -Wall -Wextra -Werror -Wshadow -Wpointer-arith -Wvla -Wformat=2 -Wno-psabi
# -fPIC -fvisibility=hidden: the same objects make ./csreg and the shared
# library, which exports only include/csreg.h (CSREG_API)
CFLAGS_rel  := -O2 -fPIC -fvisibility=hidden
CFLAGS_asan := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS_asan := -fsanitize=address,undefined
# libFuzzer build (clang): `make fuzz FUZZ_SECONDS=600`
CFLAGS_fuzz := -O1 -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
LDFLAGS_fuzz := -fsanitize=fuzzer,address,undefined
FUZZ_SECONDS ?= 60
VERSION := 0.1.0
# make install PREFIX=... DESTDIR=...: where the installed program looks for
# its data (sessions, G-set graphs, the tour) is compiled in from PREFIX
PREFIX  ?= /usr/local
DESTDIR ?=
DATADIR := $(PREFIX)/share/csreg
# where Debian's Python finds packages: /usr/lib/python3/dist-packages for
# PREFIX=/usr, PREFIX/lib/python3.X/dist-packages otherwise (/usr/local)
PYVER   := $(shell /usr/bin/python3 -c 'import sys; print("%d.%d" % sys.version_info[:2])' 2>/dev/null)
PYDIR   ?= $(if $(filter /usr,$(PREFIX)),/usr/lib/python3/dist-packages,$(PREFIX)/lib/python$(PYVER)/dist-packages)
GIT_COMMIT := $(shell git rev-parse --short HEAD 2>/dev/null || echo unknown)
# Layers, enforced by include folders: each source sees the headers of its
# own folder and of the layers below it, so an upward #include fails to
# compile. Inside the engine: base < reg, opt < recovery; base < reg < nn.
INC_engine/base     := engine/base
INC_engine/reg      := engine/base engine/reg
INC_engine/opt      := engine/base engine/opt
INC_engine/recovery := engine/base engine/reg engine/opt engine/recovery
INC_engine/nn       := engine/base engine/reg engine/nn
ENGINE_INC := engine/base engine/reg engine/opt engine/recovery engine/nn
INC_plots    := $(ENGINE_INC) plots
INC_sessions := $(ENGINE_INC) plots sessions
INC_ui       := $(ENGINE_INC) plots sessions ui
INC_tests    := $(ENGINE_INC) plots sessions ui tests include
INC_lib      := $(ENGINE_INC) plots sessions include
INC_examples := include
# engine/SUB/... -> engine/SUB; any other path -> its top folder
layer_of = $(if $(filter engine,$(firstword $(subst /, ,$(1)))),engine/$(word 2,$(subst /, ,$(1))),$(firstword $(subst /, ,$(1))))
incs = $(addprefix -I,$(INC_$(call layer_of,$(1))))
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -g $(WARN) $(CFLAGS_$(VARIANT)) $(CFLAGS) -MMD -MP \
             $(PKG_CFLAGS) \
             -DCSREG_VERSION='"$(VERSION)"' -DCSREG_COMMIT='"$(GIT_COMMIT)"' $(CUDA_DEFS)
ALL_LDFLAGS = $(LDFLAGS_$(VARIANT)) $(LDFLAGS)
# libdouble-conversion (C++: engine/base/dtoa.cc) for the shortest digits
LIBS = $(PKG_LIBS) -lstdc++ -lpthread -lm $(CUDA_LIBS)

# CUDA: CUDA=1 forces, CUDA=0 disables, default detects nvcc.
NVCC := $(or $(shell command -v nvcc 2>/dev/null),$(wildcard /usr/local/cuda/bin/nvcc))
ifeq ($(CUDA),)
CUDA := $(if $(NVCC),1,0)
endif

# MPI: MPI=1 forces, MPI=0 disables, default detects mpicc (OpenMPI from
# Debian). With it the rel variant also builds $(BUILD)/csreg-mpi (copied
# to ./csreg-mpi by `make`): the same program with engine/recovery/dist.c
# compiled by mpicc with -DCSREG_HAVE_MPI, so sweep, maxcut and basins
# spread their trials over the ranks of `mpirun -np K ./csreg-mpi run F.csr`.
# A separate binary, so ./csreg, libcsreg.a and every test program link no
# MPI library and start without an MPI runtime; the ASan variant is built
# without it (OpenMPI's own allocations read as leaks to LeakSanitizer).
MPICC := $(shell command -v mpicc 2>/dev/null)
ifeq ($(MPI),)
MPI := $(if $(MPICC),1,0)
endif
ifeq ($(MPI),1)
MPICC := $(or $(MPICC),mpicc)
endif
MPI_BUILD := $(if $(filter asan fuzz,$(VARIANT)),0,$(MPI))
ifeq ($(MPI_BUILD),1)
MPI_OBJ     := $(BUILD)/engine/recovery/dist_mpi.o
MPI_PROGRAM := $(BUILD)/csreg-mpi
endif

ENGINE_SRC  := $(wildcard engine/*/*.c engine/nn/cpu/*.c)
PLOTS_SRC   := $(wildcard plots/*.c)
SESS_SRC    := $(wildcard sessions/*.c)
UI_SRC      := $(filter-out ui/main.c,$(wildcard ui/*.c))
TEST_SRC    := $(wildcard tests/test_*.c)
BENCH_SRC   := $(wildcard tests/bench_*.c)
TEST_UTIL_SRC := $(wildcard tests/*_util.c)
LIB_SRC     := $(wildcard lib/*.c)

obj = $(patsubst %.c,$(BUILD)/%.o,$(1))
ENGINE_CC_SRC := $(wildcard engine/base/*.cc)
ENGINE_OBJ := $(call obj,$(ENGINE_SRC)) $(patsubst %.cc,$(BUILD)/%.o,$(ENGINE_CC_SRC))

# The CUDA module (engine/nn/cuda/*.cu, the network backend, and
# engine/recovery/cuda/*.cu, the batched sweep; nvcc + cuBLAS) in the rel
# variant when CUDA=1, as a shared module, $(BUILD)/libcsreg_cuda.so (copied beside
# ./csreg by `make`), that the engine loads with dlopen at device=cuda|auto
# (engine/base/cuda_module.c): ./csreg links no CUDA library and runs on the
# CPU where the module or the CUDA libraries are missing. The ASan variant is
# built without it (the CUDA runtime and ASan's shadow memory do not mix on
# GPU machines), so its tests skip the GPU.
# Code for sm_80, sm_90 and sm_100 (those this nvcc knows) and PTX of the
# highest. --fmad=false: the kernels round as the CPU reference does (gcc
# with -std=c11 contracts no FMAs, -ffp-contract=off); cuBLAS's sgemm uses
# FMAs regardless, so parity (tests/test_nn_device.c) allows 1e-4 relative.
CUDA_HOME ?= /usr/local/cuda
CUDA_BUILD := $(if $(filter asan fuzz,$(VARIANT)),0,$(CUDA))
CUDA_ARCHS := 80 90 100
ifeq ($(CUDA_BUILD),1)
CUDA_SRC  := $(wildcard engine/nn/cuda/*.cu engine/recovery/cuda/*.cu)
CUDA_OBJ  := $(patsubst %.cu,$(BUILD)/%.o,$(CUDA_SRC))
CUDA_MODULE := $(BUILD)/libcsreg_cuda.so
CUDA_DEFS := -DCSREG_HAVE_CUDA
CUDA_LIBS := -ldl
NVCC_ARCHS := $(shell $(NVCC) --list-gpu-arch 2>/dev/null)
CUDA_SM   := $(foreach a,$(CUDA_ARCHS),$(if $(filter compute_$(a),$(NVCC_ARCHS)),$(a)))
CUDA_PTX  := $(lastword $(CUDA_SM))
comma := ,
CUDA_GENCODE := $(foreach a,$(CUDA_SM),-gencode arch=compute_$(a)$(comma)code=sm_$(a)) \
                $(if $(CUDA_PTX),-gencode arch=compute_$(CUDA_PTX)$(comma)code=compute_$(CUDA_PTX))
NVCCFLAGS := -O2 -std=c++17 --fmad=false $(CUDA_GENCODE) $(CUDA_DEFS) $(call incs,engine/nn) \
             -Xcompiler -Wall,-Wextra,-Werror,-fPIC,-fvisibility=hidden
# cudart linked statically into the module (nvcc's default), cuBLAS from
# the CUDA installation (or beside the module)
CUDA_MODULE_LIBS := -L$(CUDA_HOME)/lib64 -lcublas -ldl -Xlinker -rpath,'$$ORIGIN':$(CUDA_HOME)/lib64
endif
APP_OBJ    := $(call obj,$(PLOTS_SRC) $(SESS_SRC) $(UI_SRC))
# The CUDA emulator (tests/emu/): the module's sources (engine/nn/cuda and
# engine/recovery/cuda *.cu) compiled as C++ for the CPU, in every variant
# and with or without nvcc, into test_cuda_emu, so the kernels' logic runs
# in `make test` under ASan. The only change to the sources is the launch
# syntax: sed turns `k<<<g, b>>>(` into `cs_emu_launch(k, g, b)(`.
CXX_EMU   ?= g++
EMU_CU    := $(wildcard engine/nn/cuda/*.cu engine/recovery/cuda/*.cu)
EMU_OBJ   := $(addprefix $(BUILD)/tests/emu/,$(notdir $(EMU_CU:.cu=.o))) \
             $(BUILD)/tests/emu/cuda_emu.o $(BUILD)/tests/emu/cudnn_emu.o
EMU_FLAGS  = -std=c++17 -g -Wall -Wextra -Werror -pthread $(CFLAGS_$(VARIANT)) -MMD -MP \
             -Itests/emu -Iengine/nn/cuda -Iengine/recovery/cuda -Iengine/nn -Iengine/reg -Iengine/base
TEST_UTIL_OBJ := $(call obj,$(TEST_UTIL_SRC))
LIBCSREG   := $(BUILD)/libcsreg.a
PROGRAM    := $(BUILD)/csreg
# The library for other programs (include/csreg.h): shared, soname'd, and
# static with the same objects; the rel variant only.
SOVERSION  := 0
SHLIB      := $(BUILD)/libcsreg.so.$(VERSION)
LIB_OBJ    := $(call obj,$(LIB_SRC))
SHLIB_OBJ  := $(LIB_OBJ) $(call obj,$(PLOTS_SRC) $(SESS_SRC)) $(ENGINE_OBJ)
ifeq ($(VARIANT),rel)
SHLIB_TARGETS := $(SHLIB) $(BUILD)/install/libcsreg.a
# checks written as scripts, run as suites of the rel build (tests/suites.txt):
# the docs, make install as a user meets it, the Python package, no loops of
# calls between the files of a folder
SCRIPT_SUITES := $(addprefix $(BUILD)/tests/,test_docs test_install test_python test_call_cycles)
endif
TEST_BINS  := $(patsubst tests/%.c,$(BUILD)/tests/%,$(TEST_SRC))
BENCH_BINS := $(patsubst tests/%.c,$(BUILD)/tests/%,$(BENCH_SRC))

.PHONY: all deps run test check bench clean help build-variant cuda-info mpi-info fuzz fuzz-build \
        check-layers check-link gpu-bundle install uninstall
.DEFAULT_GOAL := all
# keep objects of test programs (they are intermediate files of a pattern
# chain); only those: a bare .SECONDARY would also keep make from rebuilding
# a missing object whose sources moved.
.SECONDARY: $(addsuffix .o,$(TEST_BINS) $(BENCH_BINS))

all: cuda-info mpi-info
	$(need_pkgs)
	@$(MAKE) --no-print-directory VARIANT=rel build-variant
	@# copy then rename: a csreg still running keeps its old file (cp onto it fails: text file busy)
	@cp $(BUILD_ROOT)/rel/csreg ./csreg.new && mv -f ./csreg.new ./csreg
	@cp $(BUILD_ROOT)/rel/libcsreg.a ./libcsreg.a
ifeq ($(MPI),1)
	@cp $(BUILD_ROOT)/rel/csreg-mpi ./csreg-mpi.new && mv -f ./csreg-mpi.new ./csreg-mpi
	@echo "built ./csreg-mpi (mpirun -np K ./csreg-mpi run FILE.csr)"
endif
ifeq ($(CUDA),1)
	@cp $(BUILD_ROOT)/rel/libcsreg_cuda.so ./.libcsreg_cuda.so.tmp && mv -f ./.libcsreg_cuda.so.tmp ./libcsreg_cuda.so
	@echo "built ./csreg, ./libcsreg.a and ./libcsreg_cuda.so (the CUDA backend, loaded at device=cuda|auto)"
else
	@echo "built ./csreg and ./libcsreg.a"
endif

build-variant: $(LIBCSREG) $(PROGRAM) $(TEST_BINS) $(BENCH_BINS) $(CUDA_MODULE) $(MPI_PROGRAM) \
               $(SHLIB_TARGETS) $(SCRIPT_SUITES)

mpi-info:
ifeq ($(MPI),1)
	@echo "✓ mpicc found ($(MPICC)), building csreg-mpi"
else
	@echo "✗ mpicc not found or MPI=0, no csreg-mpi (make deps installs OpenMPI)"
endif

cuda-info:
ifeq ($(CUDA),1)
	@echo "✓ nvcc found ($(NVCC)), CUDA support enabled"
else
	@echo "✗ nvcc not found or CUDA=0, skipping GPU/CUDA builds"
endif

help:
	@echo "make deps   install missing Debian packages (as root; else prints the apt-get line)"
	@echo "make all    build ./csreg and ./libcsreg.a"
	@echo "make run    deps + build + start the workbench on the built-in demo"
	@echo "make test   deps + build + every cmocka suite, normal and ASan/UBSan builds, the fuzz build"
	@echo "make check  the unit suites of both builds (no end-to-end ones: tests/suites.txt), quick"
	@echo "            (one suite: tests/run_tests.sh --only NAME build/rel build/asan)"
	@echo "make bench  benchmarks with ratios against reference runs"
	@echo "make check-link    ./csreg links no CUDA library (make test runs it)"
	@echo "make gpu-bundle    build/gpu/: csreg, the CUDA module, the GPU tests, their libraries, data, run.sh"
	@echo "make MPI=0|1       without/with ./csreg-mpi (default: with, when mpicc is found)"
	@echo "make check-layers  no folder sees the headers of a layer above it (make test runs it)"
	@echo "make clean  remove build outputs"

deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -z "$$missing" ]; then echo "✓ Debian packages present"; exit 0; fi; \
	if [ "$$(id -u)" = 0 ]; then \
	  echo "installing:$$missing"; \
	  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $$missing; \
	else \
	  echo "missing Debian packages:$$missing"; \
	  echo "run as root:  apt-get install -y$$missing"; exit 1; \
	fi

run: deps
	@$(MAKE) --no-print-directory all
	@echo "starting the demo; ./csreg --tour walks through the paper a chapter at a time"
	./csreg --demo

# The layers, checked: a header of a layer above must not be found, one of
# the same or a lower layer must (so the probe itself works).
LAYER_DENIED := engine/base:cs_reg.h engine/reg:cs_solver.h engine/opt:cs_reg.h \
                engine/recovery:cs_nn.h engine/recovery:cs_interp.h engine/nn:cs_solver.h \
                plots:cs_interp.h sessions:tui_internal.h
LAYER_ALLOWED := engine/reg:cs_error.h engine/recovery:cs_reg.h engine/nn:cs_reg.h \
                 plots:cs_solver.h sessions:plot.h ui:cs_interp.h
layer_probe = echo '\#include "$(word 2,$(subst :, ,$(1)))"' | \
              $(CC) -std=c11 -D_GNU_SOURCE -fsyntax-only $(PKG_CFLAGS) \
              $(call incs,$(word 1,$(subst :, ,$(1)))/probe.c) -x c - 2>/dev/null
check-layers:
	@$(foreach p,$(LAYER_DENIED),if $(call layer_probe,$(p)); then \
	  echo "✗ $(p): $(word 1,$(subst :, ,$(p))) sees a header of a layer above it"; exit 1; fi;)
	@$(foreach p,$(LAYER_ALLOWED),if ! $(call layer_probe,$(p)); then \
	  echo "✗ $(p): the layer probe cannot find an allowed header"; exit 1; fi;)
	@echo "✓ layers: no folder sees the headers of a layer above it"

# ./csreg links no CUDA library (the backend is the module, loaded by dlopen),
# so it runs where there is no CUDA
check-link:
	@if ldd ./csreg | grep -Ei 'libcuda|libcudart|libcublas|libcudnn'; then \
	  echo "✗ ./csreg links a CUDA library (it must load the CUDA module instead)"; exit 1; fi
	@if [ -e ./libcsreg_cuda.so ] && ldd ./libcsreg_cuda.so | grep -i 'libcudnn'; then \
	  echo "✗ the CUDA module links cuDNN (it must open it at run time: a machine without cuDNN runs the built-in kernels)"; exit 1; fi
	@echo "✓ ./csreg links no CUDA library$(if $(filter 1,$(CUDA)), (the CUDA backend: ./libcsreg_cuda.so, loaded at device=cuda|auto))"

# Suites run in parallel (JOBS=N: N at once; default every core); the slow
# and the end-to-end ones are tagged in tests/suites.txt.
test: deps check-layers
	@$(MAKE) --no-print-directory $(SUBJ) all
	@$(MAKE) --no-print-directory check-link
	@$(MAKE) --no-print-directory $(SUBJ) VARIANT=asan build-variant
	@$(MAKE) --no-print-directory $(SUBJ) fuzz-build
	@$(foreach h,$(FUZZ_HARNESSES),cd $(BUILD_ROOT)/fuzz && ./$(h) $(CURDIR)/$(FUZZ_SEEDS_$(h))/* \
	  >$(h).log 2>&1 || { cat $(h).log; echo "✗ $(h) failed on the seed corpus"; exit 1; }; cd $(CURDIR);)
	@echo "✓ $(FUZZ_HARNESSES) built (clang) and ran their seed corpora"
	@JOBS=$(JOBS) tests/run_tests.sh $(BUILD_ROOT)/rel $(BUILD_ROOT)/asan

# The unit suites of both builds: the check to run while working.
check: deps
	@$(MAKE) --no-print-directory $(SUBJ) VARIANT=rel build-variant
	@$(MAKE) --no-print-directory $(SUBJ) VARIANT=asan build-variant
	@JOBS=$(JOBS) tests/run_tests.sh --unit $(BUILD_ROOT)/rel $(BUILD_ROOT)/asan

bench: deps
	@$(MAKE) --no-print-directory all
	@for b in $(patsubst tests/%.c,$(BUILD_ROOT)/rel/tests/%,$(BENCH_SRC)); do echo "== $$b"; $$b || exit 1; done
	@echo "== tests/python/bench_reg.py (the library's rows and the PyTorch module against torch one-liners, one thread)"
	@PYTHONPATH=python CSREG_LIB=$(BUILD_ROOT)/rel/libcsreg.so.0 /usr/bin/python3 tests/python/bench_reg.py
	@echo "== tests/python/bench_watch.py (csreg.watch.Logger: its cost on a ResNet-20 training step)"
	@PYTHONPATH=python CSREG_LIB=$(BUILD_ROOT)/rel/libcsreg.so.0 /usr/bin/python3 tests/python/bench_watch.py

# Fuzz each harness of tests/fuzz for FUZZ_SECONDS: fuzz_interp (the
# interpreter, seeds in tests/fuzz/corpus), fuzz_expr (the expression
# parser and evaluator, seeds in tests/fuzz/corpus_expr); findings land in
# build/fuzz/artifacts/, new inputs in build/fuzz/corpus-HARNESS/.
FUZZ_HARNESSES := fuzz_interp fuzz_expr
FUZZ_SEEDS_fuzz_interp := tests/fuzz/corpus
FUZZ_SEEDS_fuzz_expr := tests/fuzz/corpus_expr
fuzz: deps
	@$(MAKE) --no-print-directory fuzz-build
	@mkdir -p $(BUILD_ROOT)/fuzz/artifacts
	@set -e; $(foreach h,$(FUZZ_HARNESSES),mkdir -p $(BUILD_ROOT)/fuzz/corpus-$(h); \
	  echo "$(h) for $(FUZZ_SECONDS) s"; cd $(BUILD_ROOT)/fuzz; \
	  ./$(h) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=2048 \
	    -artifact_prefix=artifacts/$(h)- -print_final_stats=1 corpus-$(h) $(CURDIR)/$(FUZZ_SEEDS_$(h)); \
	  cd $(CURDIR);)

# the harnesses alone, built with clang (make test builds them too, so they cannot rot)
fuzz-build:
	$(need_pkgs)
	@$(MAKE) --no-print-directory VARIANT=fuzz CC=clang CXX=clang++ \
	  $(addprefix $(BUILD_ROOT)/fuzz/,$(FUZZ_HARNESSES))

$(BUILD_ROOT)/fuzz/fuzz_interp: $(BUILD)/tests/fuzz/fuzz_interp.o $(APP_OBJ) $(LIBCSREG)
	@echo "  LD fuzz $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD_ROOT)/fuzz/fuzz_expr: $(BUILD)/tests/fuzz/fuzz_expr.o $(LIBCSREG)
	@echo "  LD fuzz $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# build/gpu: what a GPU machine without apt or network needs to run the
# CUDA checks (tests/gpu/bundle.sh, tests/gpu/run.sh); a CUDA build
gpu-bundle: deps
	@test "$(CUDA)" = 1 || { echo "gpu-bundle: needs nvcc (CUDA=1)"; exit 1; }
	@$(MAKE) --no-print-directory all
	@tests/gpu/bundle.sh $(BUILD_ROOT)/rel $(BUILD_ROOT)/gpu

# The installed tree: program, library (shared and static), header,
# pkg-config file, man page and bash completion (both generated from the
# command table by the program itself), the data, the Python package.
INSTALL_FILES = bin/csreg bin/csreg-mpi lib/libcsreg.so.$(VERSION) lib/libcsreg.so.$(SOVERSION) \
  lib/libcsreg.so lib/libcsreg.a include/csreg.h lib/pkgconfig/csreg.pc share/man/man1/csreg.1 \
  share/bash-completion/completions/csreg
install: all
	@d='$(DESTDIR)$(PREFIX)'; set -e; \
	install -d "$$d/bin" "$$d/lib/pkgconfig" "$$d/include" "$$d/share/man/man1" \
	  "$$d/share/bash-completion/completions" "$$d/share/csreg/sessions/data/gset" \
	  '$(DESTDIR)$(PYDIR)/csreg'; \
	install -m 755 csreg "$$d/bin/csreg"; \
	if [ -x csreg-mpi ]; then install -m 755 csreg-mpi "$$d/bin/csreg-mpi"; fi; \
	if [ -f libcsreg_cuda.so ]; then install -m 644 libcsreg_cuda.so "$$d/bin/libcsreg_cuda.so"; fi; \
	install -m 644 $(BUILD_ROOT)/rel/libcsreg.so.$(VERSION) "$$d/lib/"; \
	ln -sf libcsreg.so.$(VERSION) "$$d/lib/libcsreg.so.$(SOVERSION)"; \
	ln -sf libcsreg.so.$(SOVERSION) "$$d/lib/libcsreg.so"; \
	install -m 644 $(BUILD_ROOT)/rel/install/libcsreg.a "$$d/lib/libcsreg.a"; \
	install -m 644 include/csreg.h "$$d/include/csreg.h"; \
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@VERSION@|$(VERSION)|' lib/csreg.pc.in >"$$d/lib/pkgconfig/csreg.pc"; \
	./csreg --man >"$$d/share/man/man1/csreg.1"; \
	./csreg --completion bash >"$$d/share/bash-completion/completions/csreg"; \
	install -m 644 sessions/*.csr "$$d/share/csreg/sessions/"; \
	install -m 644 sessions/data/gset/* "$$d/share/csreg/sessions/data/gset/"; \
	install -m 644 python/csreg/*.py '$(DESTDIR)$(PYDIR)/csreg/'; \
	echo "installed csreg $(VERSION) under $$d"

uninstall:
	@d='$(DESTDIR)$(PREFIX)'; for f in $(INSTALL_FILES) bin/libcsreg_cuda.so; do rm -f "$$d/$$f"; done; \
	rm -rf "$$d/share/csreg" '$(DESTDIR)$(PYDIR)/csreg'; echo "removed csreg from $$d"

clean:
	rm -rf $(BUILD_ROOT) csreg csreg-mpi libcsreg.a libcsreg_cuda.so

# objects follow the flags of their variant (not the commit): a change, such
# as -fPIC joining the rel flags, rebuilds them
$(BUILD)/flags.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(WARN) $(CFLAGS_$(VARIANT)) $(CFLAGS)' | cmp -s - $@ || \
	  echo '$(WARN) $(CFLAGS_$(VARIANT)) $(CFLAGS)' >$@

$(BUILD)/%.o: %.c $(BUILD)/flags.stamp
	@mkdir -p $(dir $@)
	@echo "  CC $(VARIANT) $<"
	@$(CC) $(ALL_CFLAGS) $(EXTRA_DEFS) $(call incs,$<) -c $< -o $@

# the engine's few C++ files (a C function over a C++ library each)
$(BUILD)/%.o: %.cc $(BUILD)/flags.stamp
	@mkdir -p $(dir $@)
	@echo "  CXX $(VARIANT) $<"
	@$(CXX) -std=c++17 -g $(filter-out -Wvla -Wpointer-arith,$(WARN)) $(CFLAGS_$(VARIANT)) $(CFLAGS) \
	  -MMD -MP $(call incs,$<) -c $< -o $@

$(BUILD)/%.o: %.cu
	@mkdir -p $(dir $@)
	@echo "  NVCC $(VARIANT) $<"
	@$(NVCC) $(NVCCFLAGS) -MMD -MP -c $< -o $@

$(LIBCSREG): $(ENGINE_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

# project.o carries DATADIR: rebuilt when PREFIX changes
$(BUILD)/datadir.stamp: FORCE
	@mkdir -p $(dir $@)
	@echo '$(DATADIR)' | cmp -s - $@ || echo '$(DATADIR)' >$@
$(BUILD)/sessions/project.o: $(BUILD)/datadir.stamp
$(BUILD)/sessions/project.o: EXTRA_DEFS = -DCSREG_DATADIR='"$(DATADIR)"'
.PHONY: FORCE
FORCE:

$(SHLIB): $(SHLIB_OBJ)
	@echo "  LD-SO $(VARIANT) $@"
	@$(CC) -shared -Wl,-soname,libcsreg.so.$(SOVERSION) -Wl,--no-undefined $(ALL_LDFLAGS) \
	  -o $@ $^ $(LIBS)
	@ln -sf libcsreg.so.$(VERSION) $(BUILD)/libcsreg.so.$(SOVERSION)
	@ln -sf libcsreg.so.$(SOVERSION) $(BUILD)/libcsreg.so

# a script suite: a two-line wrapper in the build folder (run_tests.sh runs
# it as it runs a cmocka binary, with CSREG_BIN set)
script_suite = @mkdir -p $(dir $@) && { echo '\#!/bin/sh'; echo $(1); } >$@ && chmod +x $@
$(BUILD)/tests/test_docs: Makefile
	$(call script_suite,'exec "$(CURDIR)/tests/docs_check.sh" "$$CSREG_BIN"')
$(BUILD)/tests/test_install: Makefile
	$(call script_suite,'BUILD_ROOT="$(abspath $(BUILD_ROOT))" exec "$(CURDIR)/tests/install_check.sh"')
$(BUILD)/tests/test_python: Makefile
	$(call script_suite,'exec "$(CURDIR)/tests/python/run.sh" "$(abspath $(BUILD))"')
$(BUILD)/tests/test_call_cycles: Makefile
	$(call script_suite,'"$(CURDIR)/tests/tools/call_cycles.sh" "$(abspath $(BUILD))" && echo "[  PASSED  ] 1 test(s)."')

$(BUILD)/install/libcsreg.a: $(SHLIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@ && ar rcs $@ $^

$(CUDA_MODULE): $(CUDA_OBJ)
	@echo "  NVCC-LD $(VARIANT) $@"
	@$(NVCC) -shared $(CUDA_GENCODE) -o $@ $^ $(CUDA_MODULE_LIBS)

$(PROGRAM): $(BUILD)/ui/main.o $(APP_OBJ) $(LIBCSREG)
	@echo "  LD $(VARIANT) $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

# the MPI variant of dist.c (the plain one is in libcsreg.a): linked first,
# it defines every cs_dist_* function, so the archive's copy is not pulled in
$(MPI_OBJ): engine/recovery/dist.c
	@mkdir -p $(dir $@)
	@echo "  MPICC $(VARIANT) $<"
	@$(MPICC) $(ALL_CFLAGS) -DCSREG_HAVE_MPI $(call incs,$<) -c $< -o $@

$(MPI_PROGRAM): $(BUILD)/ui/main.o $(APP_OBJ) $(MPI_OBJ) $(LIBCSREG)
	@echo "  LD $(VARIANT) $@"
	@$(MPICC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS)

emu_sed = @mkdir -p $(dir $@) && \
  sed 's/\([A-Za-z_][A-Za-z_0-9]*\)<<<\(.*\)>>>(/cs_emu_launch(\1, \2)(/' $< >$@ && \
  if grep -n '<<<' $@; then echo "$<: a launch the emulator's sed did not rewrite"; exit 1; fi
$(BUILD)/tests/emu/%.cc: engine/nn/cuda/%.cu
	$(emu_sed)
$(BUILD)/tests/emu/%.cc: engine/recovery/cuda/%.cu
	$(emu_sed)

$(BUILD)/tests/emu/%.o: $(BUILD)/tests/emu/%.cc tests/emu/cuda_emu.h
	@echo "  CXX-EMU $(VARIANT) $(notdir $(<:.cc=.cu))"
	@$(CXX_EMU) $(EMU_FLAGS) -include tests/emu/cuda_emu.h -c $< -o $@

$(BUILD)/tests/emu/cuda_emu.o $(BUILD)/tests/emu/cudnn_emu.o: $(BUILD)/tests/emu/%.o: tests/emu/%.cc
	@mkdir -p $(dir $@)
	@echo "  CXX $(VARIANT) $<"
	@$(CXX_EMU) $(EMU_FLAGS) -c $< -o $@

$(BUILD)/tests/test_cuda_emu: $(BUILD)/tests/test_cuda_emu.o $(EMU_OBJ) $(TEST_UTIL_OBJ) \
                              $(APP_OBJ) $(LIBCSREG)
	@echo "  LD $(VARIANT) $@"
	@$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ $(LIBS) $(CMOCKA_LIBS) -lstdc++ -ldl
$(BUILD)/tests/test_cuda_emu_expr: $(BUILD)/tests/test_cuda_emu_expr.o $(EMU_OBJ) \
                                   $(TEST_UTIL_OBJ) $(APP_OBJ) $(LIBCSREG)
	@echo "  LD $(VARIANT) $@"
	@$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ $(LIBS) $(CMOCKA_LIBS) -lstdc++ -ldl
$(BUILD)/tests/test_cuda_emu_matrix: $(BUILD)/tests/test_cuda_emu_matrix.o $(EMU_OBJ) \
                                     $(TEST_UTIL_OBJ) $(APP_OBJ) $(LIBCSREG)
	@echo "  LD $(VARIANT) $@"
	@$(CC) $(ALL_LDFLAGS) -pthread -o $@ $^ $(LIBS) $(CMOCKA_LIBS) -lstdc++ -ldl

$(BUILD)/tests/%: $(BUILD)/tests/%.o $(TEST_UTIL_OBJ) $(APP_OBJ) $(LIBCSREG)
	@echo "  LD $(VARIANT) $@"
	@$(CC) $(ALL_LDFLAGS) -o $@ $^ $(LIBS) $(CMOCKA_LIBS)

-include $(shell find $(BUILD) -name '*.d' 2>/dev/null)
