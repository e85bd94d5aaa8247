//===- DepAnalysis.h - register and control dependences of sites -*- C++ -*-===//
//
// For one function whose sites AccessAnalysis has found: which sites
// compute the values each site uses in registers (its addresses, stored
// values, call arguments; through SSA values, phis, locals whose address
// never escapes and calls), and which compute the conditions of the
// branches deciding whether it runs (control dependence, transitively).
// Values crossing functions are named by symbols (a parameter, a return
// value, the conditions of a call), which the reader resolves by name over
// every table of a process.  docs/dependence.md defines the relations;
// tracelib/trace-format.h the table section.  Read-only on the IR.
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_CLANG_PASS_DEPANALYSIS_H
#define COMMHINT_CLANG_PASS_DEPANALYSIS_H

#include "AccessAnalysis.h"

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace llvm {
class PostDominatorTree;
}

namespace commhint {

/// One dependence: on a site of this translation unit (Func empty) or on a
/// symbol (Func, Arg).  Kind is enum cht_dep_kind.
struct Dep {
  uint16_t Kind = 0;
  int16_t Arg = 0;
  uint32_t Site = 0; // local site id
  llvm::StringRef Func; // symbol kinds: a function's name (alive as long as
                        // the module) or "*"; cheap to copy in the sets

  bool operator<(const Dep &O) const {
    return std::tie(Kind, Site, Func, Arg) <
           std::tie(O.Kind, O.Site, O.Func, O.Arg);
  }
  bool operator==(const Dep &O) const {
    return Kind == O.Kind && Site == O.Site && Func == O.Func && Arg == O.Arg;
  }
};

/// Rows of symbols: (function, arg) -> what it is made of.
using SymbolRows = std::map<std::pair<std::string, int>, std::vector<Dep>>;

class DepAnalysis {
public:
  /// \p FirstLocal is the local id the table gives Plan.Sites[0].
  DepAnalysis(llvm::Function &F, const FunctionPlan &Plan, uint32_t FirstLocal,
              llvm::PostDominatorTree &PDT);
  ~DepAnalysis();

  /// The dependences of each site of the plan (in plan order, sorted, no
  /// duplicates); adds this function's symbol rows to \p Syms (merged with
  /// what is there).
  std::vector<std::vector<Dep>> run(SymbolRows &Syms);

private:
  struct Impl;
  Impl *P;
};

/// Merges sorted \p Add into sorted \p Into, keeping it sorted and unique.
void mergeDeps(std::vector<Dep> &Into, const std::vector<Dep> &Add);

} // namespace commhint

#endif // COMMHINT_CLANG_PASS_DEPANALYSIS_H
