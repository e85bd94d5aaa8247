//===- SiteCost.h - static cost of each statement --------------*- C++ -*-===//
//
// What one execution of a site costs, in units of about one simple
// instruction (trace-format.h, CHT_COST_*), from the instructions of its
// function attributed to it.  The analysis splits the time measured between
// two MPI calls among the computation events in proportion to it
// (docs/dependence.md, "Estimated time of computation events").
//
//===----------------------------------------------------------------------===//

#ifndef COMMHINT_CLANG_PASS_SITECOST_H
#define COMMHINT_CLANG_PASS_SITECOST_H

#include "AccessAnalysis.h"

namespace commhint {

/// Sets Site::Cost of every site of \p Plan (the plan of \p F).
void computeSiteCosts(llvm::Function &F, FunctionPlan &Plan);

} // namespace commhint

#endif // COMMHINT_CLANG_PASS_SITECOST_H
