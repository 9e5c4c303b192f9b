//! `ljr` links the generated interpreter, whose code addresses its dispatch table absolutely
//! (see `deegen_llvm_ir::target_machine`): the executables are non-PIE.

fn main() {
    println!("cargo:rustc-link-arg=-no-pie");
}
