//! Scope management for variable resolution during type checking.
//!
//! Scopes are used to track variable bindings, especially for comprehensions
//! where iteration variables shadow outer variables.

use std::collections::HashMap;

use crate::types::{CelType, VariableDecl};

/// A scope containing variable declarations.
///
/// Scopes form a stack during type checking, with inner scopes
/// (e.g., inside comprehensions) shadowing outer bindings.
#[derive(Debug, Clone, Default)]
pub struct Scope {
    /// Variables declared in this scope.
    variables: HashMap<String, VariableDecl>,
}

impl Scope {
    /// Create a new empty scope.
    pub fn new() -> Self {
        Self::default()
    }

    /// Add a variable to this scope.
    pub fn add_variable(&mut self, name: impl Into<String>, cel_type: CelType) {
        let name = name.into();
        self.variables
            .insert(name.clone(), VariableDecl::new(name, cel_type));
    }

    /// Add a variable declaration to this scope.
    #[allow(dead_code)]
    pub fn add_decl(&mut self, decl: VariableDecl) {
        self.variables.insert(decl.name.clone(), decl);
    }

    /// Look up a variable in this scope only.
    pub fn get(&self, name: &str) -> Option<&VariableDecl> {
        self.variables.get(name)
    }

    /// Check if this scope contains a variable.
    #[allow(dead_code)]
    pub fn contains(&self, name: &str) -> bool {
        self.variables.contains_key(name)
    }
}

/// A stack of scopes for nested variable resolution.
///
/// Variables are resolved from innermost to outermost scope,
/// allowing inner scopes to shadow outer bindings.
///
/// Palisade: the root scope is the environment's variables, borrowed; cel-core copied them into a map of its own for
/// every expression it checked, a tenth of compiling one in an environment of many variables (Kubernetes').
#[derive(Debug)]
pub struct ScopeStack<'a> {
    /// The environment's variables.
    root: &'a HashMap<String, CelType>,
    /// The local scopes (comprehensions, bindings), innermost last.
    scopes: Vec<Scope>,
}

impl<'a> ScopeStack<'a> {
    /// Create a scope stack whose root scope is `root`.
    pub fn new(root: &'a HashMap<String, CelType>) -> Self {
        Self {
            root,
            scopes: Vec::new(),
        }
    }

    /// Push a new scope onto the stack.
    pub fn enter_scope(&mut self) {
        self.scopes.push(Scope::new());
    }

    /// Pop the current scope from the stack.
    ///
    /// Returns the popped scope, or None if only the root scope is left.
    pub fn exit_scope(&mut self) -> Option<Scope> {
        self.scopes.pop()
    }

    /// Add a variable to the current scope (a new local one when there is none: the root is not changed).
    pub fn add_variable(&mut self, name: impl Into<String>, cel_type: CelType) {
        if self.scopes.is_empty() {
            self.enter_scope();
        }
        if let Some(scope) = self.scopes.last_mut() {
            scope.add_variable(name, cel_type);
        }
    }

    /// Look up a variable's type, searching from innermost to outermost scope.
    pub fn resolve(&self, name: &str) -> Option<&CelType> {
        for scope in self.scopes.iter().rev() {
            if let Some(decl) = scope.get(name) {
                return Some(&decl.cel_type);
            }
        }
        self.root.get(name)
    }

    /// Look up a variable only in local (non-root) scopes.
    ///
    /// This checks comprehension and bind scopes but NOT the root scope.
    /// Returns true if the name is a local variable that should shadow
    /// container-prefixed names.
    pub fn is_local(&self, name: &str) -> bool {
        self.scopes.iter().any(|scope| scope.get(name).is_some())
    }

    /// Check if a variable is declared in any scope.
    #[allow(dead_code)]
    pub fn contains(&self, name: &str) -> bool {
        self.resolve(name).is_some()
    }

    /// Get the depth of the scope stack.
    #[allow(dead_code)]
    pub fn depth(&self) -> usize {
        self.scopes.len() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn test_scope_add_and_get() {
        let mut scope = Scope::new();
        scope.add_variable("x", CelType::Int);

        let decl = scope.get("x").unwrap();
        assert_eq!(decl.name, "x");
        assert_eq!(decl.cel_type, CelType::Int);
    }

    fn root(vars: &[(&str, CelType)]) -> HashMap<String, CelType> {
        vars.iter().map(|(n, t)| ((*n).to_owned(), t.clone())).collect()
    }

    #[test]
    fn test_scope_stack_resolve() {
        let vars = root(&[("x", CelType::Int)]);
        let stack = ScopeStack::new(&vars);
        assert_eq!(stack.resolve("x"), Some(&CelType::Int));
        assert!(!stack.is_local("x"));
    }

    #[test]
    fn test_scope_stack_shadowing() {
        let vars = root(&[("x", CelType::Int)]);
        let mut stack = ScopeStack::new(&vars);

        // Enter inner scope
        stack.enter_scope();
        stack.add_variable("x", CelType::String); // Shadow x

        // Inner scope should see String
        assert_eq!(stack.resolve("x"), Some(&CelType::String));
        assert!(stack.is_local("x"));

        // Exit inner scope
        stack.exit_scope();

        // Outer scope should see Int again
        assert_eq!(stack.resolve("x"), Some(&CelType::Int));
    }

    #[test]
    fn test_scope_stack_cannot_pop_the_root() {
        let vars = root(&[]);
        let mut stack = ScopeStack::new(&vars);
        assert!(stack.exit_scope().is_none());
        assert_eq!(stack.depth(), 1);
    }

    #[test]
    fn test_scope_stack_nested() {
        let vars = root(&[("a", CelType::Int)]);
        let mut stack = ScopeStack::new(&vars);

        stack.enter_scope();
        stack.add_variable("b", CelType::String);

        stack.enter_scope();
        stack.add_variable("c", CelType::Bool);

        // All three should be visible
        assert!(stack.resolve("a").is_some());
        assert!(stack.resolve("b").is_some());
        assert!(stack.resolve("c").is_some());

        stack.exit_scope();
        assert!(stack.resolve("a").is_some());
        assert!(stack.resolve("b").is_some());
        assert!(stack.resolve("c").is_none());

        stack.exit_scope();
        assert!(stack.resolve("a").is_some());
        assert!(stack.resolve("b").is_none());
        assert!(stack.resolve("c").is_none());
    }
}
