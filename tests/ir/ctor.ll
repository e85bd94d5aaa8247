; Module-level output: internal bases (CHT_NONE until registration), the
; private site table, a constructor (priority 1, not itself instrumented)
; that calls __commhint_register_tu(COMMHINT_RT_ABI_VERSION, blob, size,
; &site_base, &loop_base), another before it that registers the functions
; with a pointer parameter a call from elsewhere may reach
; (__commhint_register_code), and runtime declarations with the commhint-rt.h
; signatures, nounwind.  Running the pass twice instruments once; a module
; with nothing to trace gets nothing.
; RUN: %opt -passes=commhint-instrument -S %s -o %t.ll
; RUN: %FileCheck %s < %t.ll
; RUN: %FileCheck %s --check-prefix=DECL < %t.ll
; RUN: %opt -passes=commhint-instrument,commhint-instrument -S %s -o %t.twice.ll
; RUN: %FileCheck %s --check-prefix=TWICE --implicit-check-not='call void @__commhint_ev1(' --implicit-check-not='call void @__commhint_register_tu(' < %t.twice.ll
; RUN: %opt -passes=commhint-instrument -S %t.ll -o %t.again.ll
; RUN: %FileCheck %s --check-prefix=TWICE --implicit-check-not='call void @__commhint_ev1(' --implicit-check-not='call void @__commhint_register_tu(' < %t.again.ll
; RUN: echo 'define i32 @f(i32 %x) { ret i32 %x }' | %opt -passes=commhint-instrument -S -o %t.empty.ll
; RUN: %FileCheck %s --check-prefix=EMPTY < %t.empty.ll

; CHECK-DAG: @__commhint_site_base = internal global i32 -2147483648
; CHECK-DAG: @__commhint_loop_base = internal global i32 -2147483648
; CHECK-DAG: @__commhint_site_table = private constant [{{[0-9]+}} x i8] c"CHTU{{.*}}", align 8
; CHECK-DAG: @__commhint_code = private constant [1 x ptr] [ptr @put]
; CHECK-DAG: @llvm.global_ctors = appending global [2 x { i32, ptr, ptr }] [{ i32, ptr, ptr } { i32 1, ptr @commhint.code_ctor, ptr null }, { i32, ptr, ptr } { i32 1, ptr @commhint.module_ctor, ptr null }]

; CHECK-LABEL: define void @put(ptr %p, i64 %v)
; CHECK: call void @__commhint_ev1(i32 %commhint.site_base, ptr %p)
; CHECK: call void @__commhint_evn(i32 [[ID:%[0-9]+]], i32 5, ptr %commhint.addrs)
; CHECK-LABEL: define internal void @commhint.module_ctor()
; CHECK-NEXT: call void @__commhint_register_tu(i32 7, ptr @__commhint_site_table, i32 {{[0-9]+}}, ptr @__commhint_site_base, ptr @__commhint_loop_base)
; CHECK-NEXT: ret void
; CHECK-NEXT: }

; DECL-DAG: declare void @__commhint_ev1(i32, ptr) [[NU:#[0-9]+]]
; DECL-DAG: declare void @__commhint_evn(i32, i32, ptr) [[NU]]
; DECL-DAG: declare void @__commhint_register_tu(i32, ptr, i32, ptr, ptr) [[NU]]
; DECL-DAG: declare void @__commhint_register_code(ptr, i32) [[NU]]
; DECL-DAG: attributes [[NU]] = { nounwind }

; TWICE: call void @__commhint_ev1(
; TWICE: call void @__commhint_register_tu(

; EMPTY-NOT: commhint

target triple = "x86_64-unknown-linux-gnu"

@a = global [8 x i64] zeroinitializer

define void @put(ptr %p, i64 %v) {
entry:
  store i64 %v, ptr %p
  call void @ext()
  %a0 = load i64, ptr getelementptr ([8 x i64], ptr @a, i64 0, i64 0)
  %a1 = load i64, ptr getelementptr ([8 x i64], ptr @a, i64 0, i64 1)
  %a2 = load i64, ptr getelementptr ([8 x i64], ptr @a, i64 0, i64 2)
  %a3 = load i64, ptr getelementptr ([8 x i64], ptr @a, i64 0, i64 3)
  %s = add i64 %a0, %a1
  store i64 %s, ptr getelementptr ([8 x i64], ptr @a, i64 0, i64 4)
  ret void
}

declare void @ext()
