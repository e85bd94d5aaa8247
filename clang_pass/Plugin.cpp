//===- Plugin.cpp - entry point of commhint-pass.so -----------------------===//
//
// Registers the commhint pass with the new pass manager:
//   clang -fpass-plugin=commhint-pass.so   runs it last in the optimisation
//                                          pipeline, at every -O level
//   opt -load-pass-plugin=commhint-pass.so -passes=commhint-instrument
// and refuses, with a message, to load into an LLVM of another major
// version than the one it was built with: the C++ ABI of LLVM changes
// between versions and such a load would crash or miscompile.
//
//===----------------------------------------------------------------------===//

#include "CommhintPass.h"

#include "llvm/Config/llvm-config.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"
#include "llvm/Support/CommandLine.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <link.h>

using namespace llvm;

namespace {

// Major version of the libLLVM the host (clang, opt) runs on, from the name
// of the loaded libLLVM-NN.so / libLLVM.so.NN; 0 if the host links LLVM
// statically (nothing to compare then).
int hostLLVMMajor() {
  int Found = 0;
  dl_iterate_phdr(
      [](struct dl_phdr_info *Info, size_t, void *Data) -> int {
        const char *Path = Info->dlpi_name;
        if (!Path || !*Path)
          return 0;
        const char *Base = std::strrchr(Path, '/');
        Base = Base ? Base + 1 : Path;
        if (std::strncmp(Base, "libLLVM", 7) != 0)
          return 0;
        const char *P = Base + 7;
        if (*P == '-')
          P += 1; // libLLVM-16.so.1, libLLVM-16.0.6.so
        else if (std::strncmp(P, ".so.", 4) == 0)
          P += 4; // libLLVM.so.18.1
        else
          return 0; // libLLVMSupport.so of a split build, ...
        if (!std::isdigit(static_cast<unsigned char>(*P)))
          return 0;
        *static_cast<int *>(Data) = std::atoi(P);
        return 1;
      },
      &Found);
  return Found;
}

int HostMajor = -1;

bool hostMatches() {
  if (HostMajor < 0)
    HostMajor = hostLLVMMajor();
  return HostMajor == 0 || HostMajor == LLVM_VERSION_MAJOR;
}

// Created at load time (so that -mllvm -commhint-filter= can be parsed when
// the plugin is loaded early enough), but only after the version check: a
// cl::opt registers itself with the host's LLVM.
cl::opt<std::string> *FilterOption = nullptr;
cl::opt<bool> *PrintSitesOption = nullptr;
cl::opt<bool> *InlineOption = nullptr;
cl::opt<bool> *ExitLoopsOption = nullptr;

__attribute__((constructor)) void initPlugin() {
  if (!hostMatches())
    return;
  FilterOption = new cl::opt<std::string>(
      "commhint-filter",
      cl::desc("commhint: comma-separated [!]file:GLOB / [!]func:GLOB "
               "patterns selecting the functions to instrument"),
      cl::init(""));
  PrintSitesOption = new cl::opt<bool>(
      "commhint-print-sites",
      cl::desc("commhint: print the site and loop tables on stderr"),
      cl::init(false));
  InlineOption = new cl::opt<bool>(
      "commhint-inline",
      cl::desc("commhint: absorb repeated records inline (false: always "
               "call the runtime)"),
      cl::init(true));
  ExitLoopsOption = new cl::opt<bool>(
      "commhint-exit-loops",
      cl::desc("commhint: record innermost one-block loops whose addresses "
               "are affine at their exits (false: per iteration)"),
      cl::init(true));
}

void registerCallbacks(PassBuilder &PB) {
  // After optimisation, like ThreadSanitizer: what is traced is what runs.
  // LLVM 16 runs OptimizerLast callbacks in the -O0 pipeline too.
  PB.registerOptimizerLastEPCallback(
      [](ModulePassManager &MPM, OptimizationLevel) {
        MPM.addPass(commhint::CommhintInstrumentPass());
      });
  PB.registerPipelineParsingCallback(
      [](StringRef Name, ModulePassManager &MPM,
         ArrayRef<PassBuilder::PipelineElement>) {
        if (Name != "commhint-instrument")
          return false;
        MPM.addPass(commhint::CommhintInstrumentPass());
        return true;
      });
}

} // namespace

std::string commhint::filterOptionValue() {
  return FilterOption ? std::string(*FilterOption) : std::string();
}

bool commhint::printSitesOption() {
  if (PrintSitesOption && *PrintSitesOption)
    return true;
  const char *Env = std::getenv("COMMHINT_PRINT_SITES");
  return Env && *Env && std::strcmp(Env, "0") != 0;
}

bool commhint::inlineFastPathOption() {
  if (InlineOption && !*InlineOption)
    return false;
  const char *Env = std::getenv("COMMHINT_INLINE");
  return !(Env && std::strcmp(Env, "0") == 0);
}

bool commhint::exitLoopsOption() {
  if (ExitLoopsOption && !*ExitLoopsOption)
    return false;
  const char *Env = std::getenv("COMMHINT_EXIT_LOOPS");
  return !(Env && std::strcmp(Env, "0") == 0);
}

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  if (!hostMatches()) {
    // stdio, not llvm::errs(): the host's LLVM is not ours.
    std::fprintf(stderr,
                 "commhint-pass.so: built for LLVM %d but loaded by LLVM %d: "
                 "compile with clang-%d (or rebuild commhint with make "
                 "CLANG=clang-%d LLVM_CONFIG=llvm-config-%d)\n",
                 LLVM_VERSION_MAJOR, HostMajor, LLVM_VERSION_MAJOR, HostMajor,
                 HostMajor);
    // API version 0 makes PassPlugin::Load fail cleanly in every LLVM.
    return {0, "commhint", "0", nullptr};
  }
  return {LLVM_PLUGIN_API_VERSION, "commhint", LLVM_VERSION_STRING,
          registerCallbacks};
}
