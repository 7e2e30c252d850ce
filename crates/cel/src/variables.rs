//! A ValidatingAdmissionPolicy's `spec.variables`: compiled in order, each in the environment that declares the ones
//! before it (kube-apiserver's `composition.go`).

use palisade_cel_eval::VariablePrograms;

use crate::{CompileError, Env, Expect};

/// The compiled `spec.variables` of a ValidatingAdmissionPolicy: the programs evaluation reads (through `Deref`, what
/// [`crate::Activation::variables`] takes) and the environment they declare.
#[derive(Clone, Debug)]
pub struct Variables {
    programs: VariablePrograms,
    env: Env,
}

impl std::ops::Deref for Variables {
    type Target = VariablePrograms;

    fn deref(&self) -> &VariablePrograms {
        &self.programs
    }
}

impl Variables {
    /// Compiles variables in order; each may use the ones before it as `variables.<name>`.
    /// On failure returns the index of the failing variable and its error.
    pub fn compile(env: &Env, vars: &[(&str, &str)]) -> Result<Variables, (usize, CompileError)> {
        let mut cur = env.clone();
        let mut programs = VariablePrograms::default();
        for (i, (name, expr)) in vars.iter().enumerate() {
            let prog = cur.compile(expr, Expect::Any).map_err(|e| (i, e))?;
            cur.declare_variable(
                &format!("variables.{name}"),
                variable_type(prog.result_type()),
            );
            programs.push(name, prog);
        }
        Ok(Variables { programs, env: cur })
    }

    /// The environment in which the policy's other expressions are compiled: it declares
    /// every `variables.<name>` with its inferred type.
    pub fn env(&self) -> &Env {
        &self.env
    }

    /// `base` with every `variables.<name>` declared as in [`Variables::env`] (a
    /// messageExpression is compiled without `authorizer` but with the policy's variables).
    pub fn declare_in(&self, mut base: Env) -> Env {
        for (name, prog) in self.names().iter().zip(self.programs()) {
            base.declare_variable(
                &format!("variables.{name}"),
                variable_type(prog.result_type()),
            );
        }
        base
    }
}

/// The type a variable is declared with (kube-apiserver composition.go
/// `convertCelTypeToDeclType`): primitives, timestamps, durations, lists and maps keep their
/// type (their parameters converted alike); anything else (an object type such as
/// `kubernetes.UserInfo`, an abstract type, a type parameter) becomes `dyn`.
fn variable_type(t: &cel_core::CelType) -> cel_core::CelType {
    variable_type_at(t, 0)
}

fn variable_type_at(t: &cel_core::CelType, depth: u32) -> cel_core::CelType {
    use cel_core::CelType;
    if depth > 32 {
        return CelType::Dyn;
    }
    match t {
        CelType::Bool
        | CelType::Int
        | CelType::UInt
        | CelType::Double
        | CelType::String
        | CelType::Bytes
        | CelType::Timestamp
        | CelType::Duration
        | CelType::Null => t.clone(),
        CelType::List(e) => CelType::list(variable_type_at(e, depth + 1)),
        CelType::Map(k, v) => CelType::map(
            variable_type_at(k, depth + 1),
            variable_type_at(v, depth + 1),
        ),
        _ => CelType::Dyn,
    }
}
