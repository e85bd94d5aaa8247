//===- CommhintPass.h - the commhint instrumentation pass ------*- C++ -*-===//
//
// The module pass `commhint-instrument`: puts the loops of the functions it
// instruments in simplified form, asks AccessAnalysis what to record and
// inserts the calls into the trace runtime (tracelib/commhint-rt.h), then
// embeds the module's site table and a constructor registering it.
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_CLANG_PASS_COMMHINTPASS_H
#define COMMHINT_CLANG_PASS_COMMHINTPASS_H

#include "llvm/IR/PassManager.h"

#include <string>

namespace commhint {

class CommhintInstrumentPass
    : public llvm::PassInfoMixin<CommhintInstrumentPass> {
public:
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &);

  // Instrument at -O0 too, and in optnone functions.
  static bool isRequired() { return true; }
};

/// Value of -commhint-filter (empty if the option is not registered, which
/// happens when the plugin refused to load into another LLVM version).
std::string filterOptionValue();

/// True if the site and loop tables are to be printed on stderr as they are
/// built (-commhint-print-sites or COMMHINT_PRINT_SITES=1), for tests.
bool printSitesOption();

/// True unless the inline fast path is turned off (-commhint-inline=false
/// or COMMHINT_INLINE=0): then every event is a call into the runtime.
bool inlineFastPathOption();

/// True unless recording loops at their exits is turned off
/// (-commhint-exit-loops=false or COMMHINT_EXIT_LOOPS=0): then every loop
/// records each iteration (ExitRecorded.h).
bool exitLoopsOption();

} // namespace commhint

#endif // COMMHINT_CLANG_PASS_COMMHINTPASS_H
