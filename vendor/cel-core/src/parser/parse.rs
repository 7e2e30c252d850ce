//! CEL parser - hand-written recursive descent with inline macro expansion.

use std::collections::HashMap;

use super::lexer::{SpannedToken, Token};
use super::macros::{MacroContext, MacroExpansion, MacroRegistry};
use crate::types::{Expr, ListElement, MapEntry, Span, Spanned, SpannedExpr, StructField};

/// Parse error with span information.
#[derive(Debug, Clone, PartialEq)]
pub struct ParseError {
    pub message: String,
    pub span: Span,
    /// cel-go words it without its `Syntax error:` prefix: a macro's error, a reserved identifier, a literal whose
    /// value does not fit or whose escape names no character.
    pub plain: bool,
}

/// Map of expression IDs to the original macro call expressions.
/// Used to preserve source information for IDE features.
pub type MacroCalls = HashMap<i64, SpannedExpr>;

/// How many syntax errors cel-go reports (its parser's `errorReportingLimit`): the next one is reported as `More than
/// 100 syntax errors`, and the parse stops there.
pub(crate) const SYNTAX_ERROR_LIMIT: usize = 100;

/// How deep the parser goes: each expression it enters weighs 1 and each member (where brackets open) 8, the weights
/// of the pre-parse bound of palisade-cel, which allows 400. Past this the parse stops with cel-go's `max recursion
/// depth exceeded`, so that no input overflows the stack: the pre-parse bound reads the text, and misses the nesting
/// after a comment holding `'''` (it knows no comments) or a closing token of the wrong kind (which the parser's
/// recovery deletes).
const MAX_DEPTH: usize = 512;

/// Recursive descent parser for CEL expressions.
/// What cel-go's grammar accepts where an expression starts (its parser's error text).
const PRIMARY_EXPECTED: &str = "{'[', '{', '(', '.', '-', '!', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
/// What ANTLR expects right after a literal's opening token (`CEL.g4`: `'[' listInit? ','? ']'`, `'{'
/// mapInitializerList? ','? '}'`, `Msg '{' fieldInitializerList? ','? '}'`): whatever starts an item (an optional
/// item's `?` too), the lone comma, or the closing token, in the grammar's token order.
const LIST_EXPECTED: &str = "{'[', ']', '{', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const MAP_EXPECTED: &str = "{'[', '{', '}', '(', '.', ',', '-', '!', '?', 'true', 'false', 'null', NUM_FLOAT, NUM_INT, NUM_UINT, STRING, BYTES, IDENTIFIER}";
const FIELDS_EXPECTED: &str = "{'}', ',', '?', IDENTIFIER, ESC_IDENTIFIER}";

pub struct Parser<'a> {
    tokens: &'a [SpannedToken],
    pos: usize,
    /// Counter for generating unique node IDs (starts at 1)
    next_id: i64,
    /// Map of comprehension/expansion IDs to original macro call expressions.
    macro_calls: MacroCalls,
    /// Accumulated non-fatal errors: macro expansions, and fields written in backticks when they are refused.
    macro_errors: Vec<ParseError>,
    /// Registry of macros for expansion (borrowed: a caller builds it once for every expression it parses).
    macros: &'a MacroRegistry,
    /// Whether a field written in backticks is an error ([`super::ParseOptions::refuse_escaped_identifiers`]).
    refuse_escaped: bool,
    /// Where the input ends (past any blank or comment after the last token): ANTLR's `<EOF>` token is there.
    input_end: usize,
    /// The weight of the rules the parser is in ([`MAX_DEPTH`]).
    depth: usize,
}

impl<'a> Parser<'a> {
    /// Create a new parser with a custom macro registry.
    pub fn with_macros(tokens: &'a [SpannedToken], macros: &'a MacroRegistry) -> Self {
        Self {
            tokens,
            pos: 0,
            next_id: 1,
            macro_calls: HashMap::new(),
            macro_errors: Vec::new(),
            macros,
            refuse_escaped: false,
            input_end: 0,
            depth: 0,
        }
    }

    /// cel-go's visitor without `EnableIdentEscapeSyntax`: the field written in backticks at `span` is refused
    /// (`unsupported syntax: '`'`, at the opening backtick), and parsing goes on.
    fn refuse_escaped_field(&mut self, span: Span) {
        if self.refuse_escaped {
            self.add_macro_error("unsupported syntax: '`'".to_string(), span);
        }
    }

    /// Take the macro_calls map, replacing it with an empty map.
    pub fn take_macro_calls(&mut self) -> MacroCalls {
        std::mem::take(&mut self.macro_calls)
    }

    /// Take accumulated macro errors.
    pub fn take_macro_errors(&mut self) -> Vec<ParseError> {
        std::mem::take(&mut self.macro_errors)
    }

    /// Add a macro error (non-fatal).
    fn add_macro_error(&mut self, message: String, span: Span) {
        self.macro_errors.push(ParseError {
            message,
            span,
            plain: true,
        });
    }

    /// Allocate the next unique node ID.
    fn next_id(&mut self) -> i64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    // === Utility Methods ===

    /// Peek at the current token without consuming it.
    fn peek(&self) -> Option<&Token> {
        self.tokens.get(self.pos).map(|(t, _)| t)
    }

    /// Peek at the current token with its span.
    fn peek_with_span(&self) -> Option<(&Token, &Span)> {
        self.tokens.get(self.pos).map(|(t, s)| (t, s))
    }

    /// Get the span of the current token.
    fn peek_span(&self) -> Span {
        self.tokens
            .get(self.pos)
            .map(|(_, s)| s.clone())
            .unwrap_or_else(|| self.eof_span())
    }

    /// Get the span representing end-of-input.
    fn eof_span(&self) -> Span {
        let end = self
            .tokens
            .last()
            .map(|(_, s)| s.end)
            .unwrap_or(0)
            .max(self.input_end);
        end..end
    }

    /// Advance to the next token, returning the current one.
    fn advance(&mut self) -> Option<&SpannedToken> {
        let token = self.tokens.get(self.pos);
        if token.is_some() {
            self.pos += 1;
        }
        token
    }

    /// Check if the current token matches the given token.
    fn check(&self, token: &Token) -> bool {
        self.peek() == Some(token)
    }

    /// Consume the current token if it matches, returning true if consumed.
    fn match_token(&mut self, token: &Token) -> bool {
        if self.check(token) {
            self.advance();
            true
        } else {
            false
        }
    }

    /// Expect a specific token, returning an error if not found.
    fn expect(&mut self, token: &Token) -> Result<Span, ParseError> {
        if self.check(token) {
            let span = self.peek_span();
            self.advance();
            Ok(span)
        } else {
            // worded as cel-go's (ANTLR) parser words it
            let message = match self.peek() {
                None => format!("missing '{}' at '<EOF>'", token),
                Some(found) => format!("mismatched input '{}' expecting '{}'", found, token),
            };
            Err(ParseError {
                message,
                span: self.peek_span(),
                plain: false,
            })
        }
    }

    /// cel-go's error for a token that cannot start here: `mismatched input 'X' expecting
    /// {expected}` (`'<EOF>'` at the end of the input).
    fn mismatched(&self, found: Option<(Token, Span)>, expected: &str) -> ParseError {
        self.unwanted("mismatched", found, expected)
    }

    /// [`Self::mismatched`], or ANTLR's words for a token it deletes (`extraneous`).
    fn unwanted(&self, how: &str, found: Option<(Token, Span)>, expected: &str) -> ParseError {
        match found {
            Some((token, span)) => ParseError {
                message: format!("{} input '{}' expecting {}", how, token, expected),
                span,
                plain: false,
            },
            None => ParseError {
                message: format!("{} input '<EOF>' expecting {}", how, expected),
                span: self.eof_span(),
                plain: false,
            },
        }
    }

    /// cel-go's error for a token after a complete expression: ANTLR deletes a single unwanted token when the end
    /// follows it (`extraneous input 'X' expecting <EOF>`), and otherwise reports `mismatched input 'X' expecting
    /// <EOF>`.
    fn not_at_end(&self) -> ParseError {
        let found = self.peek().cloned().map(|t| (t, self.peek_span()));
        let how = if self.tokens.get(self.pos + 1).is_none() {
            "extraneous"
        } else {
            "mismatched"
        };
        self.unwanted(how, found, "<EOF>")
    }

    /// ANTLR's `sync` right after a literal's opening token, before its optional items ([`LIST_EXPECTED`]): returns
    /// whether the literal is empty, `[]` or the grammar's lone comma `[,]` (consumed; the caller then expects the
    /// closing token). A token that can neither start an item nor end the literal is reported with the state's whole
    /// `expected` set. When the token after it fits, ANTLR deletes it (`extraneous input`, reported, and the parse
    /// goes on: `{:a}`, `msg{:a}`); otherwise the parse stops there (`mismatched input`: `{`, `x{.`).
    fn literal_start(
        &mut self,
        close: &Token,
        expected: &str,
        starts_item: fn(&Token) -> bool,
    ) -> Result<bool, ParseError> {
        let fits = |t: &Token| t == close || *t == Token::Comma || starts_item(t);
        match self.peek() {
            Some(t) if t == close => return Ok(true),
            Some(Token::Comma) => {
                self.advance();
                return Ok(true);
            }
            Some(t) if starts_item(t) => return Ok(false),
            _ => {}
        }
        if self.peek().is_some() && self.next_fits(fits) {
            self.extraneous(expected);
            return self.literal_start(close, expected, starts_item);
        }
        let found = self.peek().cloned().map(|t| (t, self.peek_span()));
        Err(self.mismatched(found, expected))
    }

    /// Whether the token after the current one fits.
    fn next_fits(&self, fits: impl Fn(&Token) -> bool) -> bool {
        self.tokens
            .get(self.pos + 1)
            .is_some_and(|(next, _)| fits(next))
    }

    /// ANTLR's single-token deletion: the current token, which cannot stand here where the next one can, is reported
    /// (`extraneous input 'X' expecting {expected}`) and skipped, and the parse goes on.
    fn extraneous(&mut self, expected: &str) {
        let found = self.peek().cloned().map(|t| (t, self.peek_span()));
        let error = self.unwanted("extraneous", found, expected);
        self.macro_errors.push(error);
        self.advance();
    }

    /// ANTLR's error when no alternative of a decision that starts at a `.` fits the token after it (`{"a": 1}."a"`:
    /// cel-go's parser tests); at the end, the text is the `.` alone.
    fn no_viable_after_dot(&self, found: Option<(Token, Span)>) -> ParseError {
        let (token, span) = match found {
            Some((token, span)) => (token.to_string(), span),
            None => (String::new(), self.eof_span()),
        };
        ParseError {
            message: format!("no viable alternative at input '.{}'", token),
            span,
            plain: false,
        }
    }

    /// Check if we've reached the end of the token stream.
    pub fn at_end(&self) -> bool {
        self.pos >= self.tokens.len()
    }

    // === Expression Parsing ===

    /// Parse an expression (entry point).
    pub fn parse_expr(&mut self) -> Result<SpannedExpr, ParseError> {
        self.descend(1)?;
        let expr = self.parse_ternary();
        self.depth -= 1;
        expr
    }

    /// Enters a rule of `weight` ([`MAX_DEPTH`]); the caller leaves it when it returns `Ok` (an error ends the parse).
    fn descend(&mut self, weight: usize) -> Result<(), ParseError> {
        self.depth += weight;
        if self.depth > MAX_DEPTH {
            return Err(ParseError {
                message: "max recursion depth exceeded".to_string(),
                span: self.peek_span(),
                plain: true,
            });
        }
        Ok(())
    }

    /// Parse ternary conditional: expr ? expr : expr
    fn parse_ternary(&mut self) -> Result<SpannedExpr, ParseError> {
        let cond = self.parse_or()?;

        if self.match_token(&Token::Question) {
            let then_expr = self.parse_expr()?;
            self.expect(&Token::Colon)?;
            let else_expr = self.parse_expr()?;
            let span = cond.span.start..else_expr.span.end;

            Ok(Spanned::new(
                self.next_id(),
                Expr::Ternary {
                    cond: Box::new(cond),
                    then_expr: Box::new(then_expr),
                    else_expr: Box::new(else_expr),
                },
                span,
            ))
        } else {
            Ok(cond)
        }
    }

    /// Parse logical OR: expr || expr
    fn parse_or(&mut self) -> Result<SpannedExpr, ParseError> {
        use crate::types::BinaryOp;

        let mut left = self.parse_and()?;

        while self.match_token(&Token::Or) {
            let right = self.parse_and()?;
            let span = left.span.start..right.span.end;
            left = Spanned::new(
                self.next_id(),
                Expr::Binary {
                    op: BinaryOp::Or,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            );
        }

        Ok(left)
    }

    /// Parse logical AND: expr && expr
    fn parse_and(&mut self) -> Result<SpannedExpr, ParseError> {
        use crate::types::BinaryOp;

        let mut left = self.parse_relation()?;

        while self.match_token(&Token::And) {
            let right = self.parse_relation()?;
            let span = left.span.start..right.span.end;
            left = Spanned::new(
                self.next_id(),
                Expr::Binary {
                    op: BinaryOp::And,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            );
        }

        Ok(left)
    }

    /// Parse relational operators: == != < <= > >= in
    fn parse_relation(&mut self) -> Result<SpannedExpr, ParseError> {
        let mut left = self.parse_addition()?;

        while let Some(op) = self.peek_relop() {
            self.advance();
            let right = self.parse_addition()?;
            let span = left.span.start..right.span.end;
            left = Spanned::new(
                self.next_id(),
                Expr::Binary {
                    op,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            );
        }

        Ok(left)
    }

    /// Check if the current token is a relational operator.
    fn peek_relop(&self) -> Option<crate::types::BinaryOp> {
        use crate::types::BinaryOp;

        match self.peek()? {
            Token::EqEq => Some(BinaryOp::Eq),
            Token::Ne => Some(BinaryOp::Ne),
            Token::Lt => Some(BinaryOp::Lt),
            Token::Le => Some(BinaryOp::Le),
            Token::Gt => Some(BinaryOp::Gt),
            Token::Ge => Some(BinaryOp::Ge),
            Token::In => Some(BinaryOp::In),
            _ => None,
        }
    }

    /// Parse additive operators: + -
    fn parse_addition(&mut self) -> Result<SpannedExpr, ParseError> {
        use crate::types::BinaryOp;

        let mut left = self.parse_mult()?;

        loop {
            let op = if self.match_token(&Token::Plus) {
                BinaryOp::Add
            } else if self.match_token(&Token::Minus) {
                BinaryOp::Sub
            } else {
                break;
            };

            let right = self.parse_mult()?;
            let span = left.span.start..right.span.end;
            left = Spanned::new(
                self.next_id(),
                Expr::Binary {
                    op,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            );
        }

        Ok(left)
    }

    /// Parse multiplicative operators: * / %
    fn parse_mult(&mut self) -> Result<SpannedExpr, ParseError> {
        use crate::types::BinaryOp;

        let mut left = self.parse_unary()?;

        loop {
            let op = if self.match_token(&Token::Star) {
                BinaryOp::Mul
            } else if self.match_token(&Token::Slash) {
                BinaryOp::Div
            } else if self.match_token(&Token::Percent) {
                BinaryOp::Mod
            } else {
                break;
            };

            let right = self.parse_unary()?;
            let span = left.span.start..right.span.end;
            left = Spanned::new(
                self.next_id(),
                Expr::Binary {
                    op,
                    left: Box::new(left),
                    right: Box::new(right),
                },
                span,
            );
        }

        Ok(left)
    }

    /// Parse unary operators: - !
    fn parse_unary(&mut self) -> Result<SpannedExpr, ParseError> {
        use crate::types::UnaryOp;

        // ANTLR's `sync` before the unary alternatives: a token that cannot start one, followed by one that can, is
        // deleted (`*@a | b`, `a && in.b`, `0-/1`: cel-go's parser tests)
        if self.peek().is_some_and(|t| !starts_unary(t)) && self.next_fits(starts_unary) {
            self.extraneous(PRIMARY_EXPECTED);
        }
        let start = self.peek_span().start;
        // cel-go's grammar: a member, or a run of `!` or of `-` before a member; an even run is dropped (`!!x` is `x`),
        // an odd one is one operator. A `-` right before a number is the number's sign: the member is a negative
        // literal (`-1`), as cel-go's parser prefers a member to a run.
        let (op, token) = if self.check(&Token::Minus) && !self.number_follows() {
            (UnaryOp::Neg, Token::Minus)
        } else if self.check(&Token::Not) {
            (UnaryOp::Not, Token::Not)
        } else {
            return self.parse_member_or_literal();
        };
        let mut run = 0usize;
        while self.match_token(&token) {
            run += 1;
        }
        let expr = self.parse_member_or_literal()?;
        if run % 2 == 0 {
            return Ok(expr);
        }
        let span = start..expr.span.end;
        Ok(Spanned::new(
            self.next_id(),
            Expr::Unary {
                op,
                expr: Box::new(expr),
            },
            span,
        ))
    }

    /// Whether the current `-` is the sign of a number: an int or a double (not a uint) comes next.
    fn number_follows(&self) -> bool {
        matches!(
            self.tokens.get(self.pos + 1),
            Some((
                Token::Int(_) | Token::Float(_) | Token::IntOverflow(_) | Token::InvalidNumber(_),
                _
            ))
        )
    }

    /// cel-go's `member`: a primary and its postfix operators, where the primary may be a negative literal (`-1`,
    /// `-2.5`, `-9223372036854775808`: a `-` right before an int or a double is its sign), so `!-1` is `!` of `-1`.
    fn parse_member_or_literal(&mut self) -> Result<SpannedExpr, ParseError> {
        self.descend(8)?;
        let member = self.parse_member_at_depth();
        self.depth -= 8;
        member
    }

    /// [`Self::parse_member_or_literal`], once its depth is counted.
    fn parse_member_at_depth(&mut self) -> Result<SpannedExpr, ParseError> {
        if !(self.check(&Token::Minus) && self.number_follows()) {
            return self.parse_postfix();
        }
        let start = self.peek_span().start;
        self.advance();
        let Some((token, span)) = self.peek_with_span() else {
            return self.parse_postfix();
        };
        let node = match token {
            Token::Int(n) => Expr::Int(-n),
            Token::Float(f) => Expr::Float(-f),
            // |i64::MIN| is a literal only with its sign
            Token::IntOverflow(_) => Expr::Int(i64::MIN),
            Token::InvalidNumber(bad) => {
                return Err(ParseError {
                    message: bad.message.to_string(),
                    span: start..span.end,
                    plain: true,
                })
            }
            _ => return self.parse_postfix(),
        };
        let end = span.end;
        self.advance();
        let literal = Spanned::new(self.next_id(), node, start..end);
        self.parse_postfix_of(literal)
    }

    /// Parse postfix operators: . [] () {}
    fn parse_postfix(&mut self) -> Result<SpannedExpr, ParseError> {
        let atom = self.parse_atom()?;
        self.parse_postfix_of(atom)
    }

    /// The postfix operators after `expr`.
    fn parse_postfix_of(&mut self, mut expr: SpannedExpr) -> Result<SpannedExpr, ParseError> {
        // a field written in backticks is a selection only: neither called nor a message's type name (cel-go's
        // grammar); what follows it is left to the enclosing rule, which refuses it as cel-go's does
        let mut escaped = false;
        loop {
            if escaped && (self.check(&Token::LParen) || self.check(&Token::LBrace)) {
                break;
            }
            escaped = false;
            if self.check(&Token::LParen) {
                // Function call
                expr = self.parse_call(expr)?;
            } else if self.check(&Token::LBracket) {
                // Index
                expr = self.parse_index(expr)?;
            } else if self.check(&Token::Dot) {
                // Member access
                (expr, escaped) = self.parse_member(expr)?;
            } else if self.check(&Token::LBrace) && self.is_type_expr(&expr) {
                // Struct literal (only if expr is an ident or member chain)
                expr = self.parse_struct_init(expr)?;
            } else {
                break;
            }
        }

        Ok(expr)
    }

    /// Check if the expression can be used as a type name for struct literals.
    fn is_type_expr(&self, expr: &SpannedExpr) -> bool {
        matches!(
            expr.node,
            Expr::Ident(_) | Expr::RootIdent(_) | Expr::Member { .. }
        )
    }

    /// Parse a function call: expr(args...)
    /// Also handles inline macro expansion using the macro registry.
    fn parse_call(&mut self, callee: SpannedExpr) -> Result<SpannedExpr, ParseError> {
        let start = callee.span.start;
        self.expect(&Token::LParen)?;

        let mut args = Vec::new();
        if !self.check(&Token::RParen) {
            args.push(self.parse_expr()?);
            while self.match_token(&Token::Comma) {
                if self.check(&Token::RParen) {
                    break; // trailing comma
                }
                args.push(self.parse_expr()?);
            }
        }

        let end_span = self.expect(&Token::RParen)?;
        let span = start..end_span.end;

        // Try macro expansion using the registry
        if let Some(expanded) = self.try_macro_expansion(&callee, span.clone(), args.clone()) {
            return Ok(expanded);
        }

        // Not a macro - return regular Call node
        Ok(Spanned::new(
            self.next_id(),
            Expr::Call {
                expr: Box::new(callee),
                args,
            },
            span,
        ))
    }

    /// Try to expand a call as a macro using the registry.
    /// Returns None if no matching macro is found or if the macro doesn't apply.
    /// Returns Some(Expr::Error) if the macro name matches but expansion fails
    /// (wrong arity or expansion error), preventing misleading checker errors.
    fn try_macro_expansion(
        &mut self,
        callee: &SpannedExpr,
        span: Span,
        args: Vec<SpannedExpr>,
    ) -> Option<SpannedExpr> {
        // Extract call info: (name, receiver, is_receiver)
        let (name, receiver, is_receiver) = self.extract_call_info(callee)?;

        // Look up macro in registry with actual arg count: a name that matches no macro of that many arguments is an
        // ordinary call, as cel-go reads it (the checker then reports it)
        let macro_def = self.macros.lookup(&name, args.len(), is_receiver)?;

        // Create macro context
        let mut next_id_fn = || {
            let id = self.next_id;
            self.next_id += 1;
            id
        };

        // Store macro call closure
        let macro_calls = &mut self.macro_calls;
        let mut store_fn = |call_id: i64,
                            span: &Span,
                            receiver: &SpannedExpr,
                            method_name: &str,
                            args: &[SpannedExpr]| {
            // Build the original call expression: receiver.method(args...)
            let method_expr = Spanned::new(
                0, // ID doesn't matter for stored calls
                Expr::Member {
                    expr: Box::new(receiver.clone()),
                    field: method_name.to_string(),
                    optional: false,
                },
                span.clone(),
            );

            let original_call = Spanned::new(
                call_id,
                Expr::Call {
                    expr: Box::new(method_expr),
                    args: args.to_vec(),
                },
                span.clone(),
            );

            macro_calls.insert(call_id, original_call);
        };

        let mut ctx = MacroContext::new(&mut next_id_fn, Some(&mut store_fn));

        // Call the expander
        let result = (macro_def.expander)(&mut ctx, span.clone(), receiver, args.clone());

        // Handle expansion errors
        let reported = ctx.take_errors();
        let already_reported = !reported.is_empty();
        for (message, error_span) in reported {
            self.add_macro_error(message, error_span);
        }

        match result {
            MacroExpansion::Expanded(expr) => Some(expr),
            MacroExpansion::Error(msg) => {
                // an expansion that reported where its error is (as cel-go does) is not reported again for the call
                if !already_reported {
                    self.add_macro_error(msg, span.clone());
                }
                let id = self.next_id;
                self.next_id += 1;
                Some(Spanned::new(id, Expr::Error, span))
            }
        }
    }

    /// Extract call information from a callee expression.
    /// Returns (name, receiver, is_receiver) or None if not a macro candidate.
    fn extract_call_info(
        &self,
        callee: &SpannedExpr,
    ) -> Option<(String, Option<SpannedExpr>, bool)> {
        match &callee.node {
            // Global function call: name(args)
            Expr::Ident(name) => {
                // Check if this is a global macro
                if self.macros.lookup(name, 0, false).is_some()
                    || self.macros.lookup(name, 1, false).is_some()
                    || self.macros.lookup(name, 2, false).is_some()
                {
                    Some((name.clone(), None, false))
                } else {
                    None
                }
            }
            // Method call: receiver.name(args)
            Expr::Member { expr, field, .. } => {
                // First check if receiver.field is a global macro (like cel.bind)
                if let Expr::Ident(receiver_name) = &expr.node {
                    let full_name = format!("{}.{}", receiver_name, field);
                    if self.macros.lookup(&full_name, 0, false).is_some()
                        || self.macros.lookup(&full_name, 1, false).is_some()
                        || self.macros.lookup(&full_name, 2, false).is_some()
                        || self.macros.lookup(&full_name, 3, false).is_some()
                    {
                        return Some((full_name, None, false));
                    }
                }
                // Check if this is a receiver macro
                if self.macros.lookup(field, 0, true).is_some()
                    || self.macros.lookup(field, 1, true).is_some()
                    || self.macros.lookup(field, 2, true).is_some()
                    || self.macros.lookup(field, 3, true).is_some()
                    || self.macros.lookup(field, 4, true).is_some()
                {
                    Some((field.clone(), Some((**expr).clone()), true))
                } else {
                    None
                }
            }
            _ => None,
        }
    }

    /// Parse an index operation: expr[index] or expr[?index]
    fn parse_index(&mut self, base: SpannedExpr) -> Result<SpannedExpr, ParseError> {
        let start = base.span.start;
        self.expect(&Token::LBracket)?;
        let optional = self.match_token(&Token::Question);
        let index = self.parse_expr()?;
        let end_span = self.expect(&Token::RBracket)?;

        Ok(Spanned::new(
            self.next_id(),
            Expr::Index {
                expr: Box::new(base),
                index: Box::new(index),
                optional,
            },
            start..end_span.end,
        ))
    }

    /// Parse member access: expr.field or expr.?field, and whether the field was written in backticks.
    fn parse_member(&mut self, base: SpannedExpr) -> Result<(SpannedExpr, bool), ParseError> {
        let start = base.span.start;
        self.expect(&Token::Dot)?;
        let optional = self.match_token(&Token::Question);

        let escaped = matches!(self.peek(), Some(Token::EscapedIdent(_)));
        if escaped {
            self.refuse_escaped_field(self.peek_span());
        }
        let (field, end) = match self.advance() {
            Some((Token::Ident(name) | Token::EscapedIdent(name), span)) => (name.clone(), span.end),
            Some((Token::Reserved(name), span)) => (name.clone(), span.end),
            // cel-go's words: after a name, the `.` may go on a message's qualified type name (`self.true`:
            // `mismatched input 'true' expecting IDENTIFIER`); after anything else no alternative fits (`{"a": 1}."a"`)
            other => {
                let found = other.cloned();
                return Err(if optional || self.is_type_expr(&base) {
                    self.mismatched(found, "IDENTIFIER")
                } else {
                    self.no_viable_after_dot(found)
                });
            }
        };

        let member = Spanned::new(
            self.next_id(),
            Expr::Member {
                expr: Box::new(base),
                field,
                optional,
            },
            start..end,
        );
        Ok((member, escaped))
    }

    /// Parse struct initialization: Type{field: value, ...}
    fn parse_struct_init(&mut self, type_name: SpannedExpr) -> Result<SpannedExpr, ParseError> {
        let start = type_name.span.start;
        self.expect(&Token::LBrace)?;

        let mut fields = Vec::new();
        if !self.literal_start(&Token::RBrace, FIELDS_EXPECTED, starts_field)? {
            fields.push(self.parse_struct_field()?);
            while self.match_token(&Token::Comma) {
                if self.check(&Token::RBrace) {
                    break; // trailing comma
                }
                fields.push(self.parse_struct_field()?);
            }
        }

        let end_span = self.expect(&Token::RBrace)?;

        Ok(Spanned::new(
            self.next_id(),
            Expr::Struct {
                type_name: Box::new(type_name),
                fields,
            },
            start..end_span.end,
        ))
    }

    /// Parse a struct field: [?]name: value
    fn parse_struct_field(&mut self) -> Result<StructField, ParseError> {
        let optional = self.match_token(&Token::Question);

        if matches!(self.peek(), Some(Token::EscapedIdent(_))) {
            self.refuse_escaped_field(self.peek_span());
        }
        let name = match self.advance() {
            Some((Token::Ident(name) | Token::EscapedIdent(name), _)) => name.clone(),
            Some((Token::Reserved(name), _)) => name.clone(),
            other => {
                let found = other.cloned();
                return Err(self.mismatched(found, "IDENTIFIER"));
            }
        };

        self.expect(&Token::Colon)?;
        let value = self.parse_expr()?;

        Ok(StructField {
            name,
            value,
            optional,
        })
    }

    /// Parse an atom: literal, identifier, parenthesized expression, list, or map.
    fn parse_atom(&mut self) -> Result<SpannedExpr, ParseError> {
        let span = self.peek_span();

        // Clone the token to avoid borrowing issues
        let token = self.peek().cloned();

        match token {
            // Literals
            Some(Token::Int(n)) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Int(n), span))
            }
            Some(Token::UInt(n)) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::UInt(n), span))
            }
            Some(Token::Float(n)) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Float(n), span))
            }
            Some(Token::String(s)) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::String(s), span))
            }
            Some(Token::Bytes(b)) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Bytes(b), span))
            }
            Some(Token::True) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Bool(true), span))
            }
            Some(Token::False) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Bool(false), span))
            }
            Some(Token::Null) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Null, span))
            }

            // Identifier
            Some(Token::Ident(name)) => {
                self.advance();
                Ok(Spanned::new(self.next_id(), Expr::Ident(name), span))
            }

            // A reserved word where an identifier may stand: cel-go's grammar reads it as an identifier and its
            // visitor reports it (its words, without the `Syntax error:` prefix) and goes on, so an error node stands
            // for it and the rest is parsed (`[1, 2, 3].map(var, var * var)`: cel-go's parser tests)
            Some(Token::Reserved(word)) => {
                self.advance();
                self.macro_errors.push(ParseError {
                    message: format!("reserved identifier: {}", word),
                    span: span.clone(),
                    plain: true,
                });
                Ok(Spanned::new(self.next_id(), Expr::Error, span))
            }

            // |i64::MIN| without its sign (with it, parse_unary reads it), and a number that does not fit
            Some(Token::IntOverflow(_)) => Err(ParseError {
                message: "invalid int literal".to_string(),
                span,
                plain: true,
            }),
            Some(Token::InvalidNumber(bad)) => Err(ParseError {
                message: bad.message.to_string(),
                span,
                plain: true,
            }),

            // Root identifier: .name
            Some(Token::Dot) => {
                self.advance();
                match self.advance() {
                    Some((Token::Ident(name), end_span)) => {
                        let name = name.clone();
                        let end = end_span.end;
                        Ok(Spanned::new(
                            self.next_id(),
                            Expr::RootIdent(name),
                            span.start..end,
                        ))
                    }
                    other => {
                        let found = other.cloned();
                        Err(self.no_viable_after_dot(found))
                    }
                }
            }

            // Parenthesized expression
            Some(Token::LParen) => {
                self.advance();
                let expr = self.parse_expr()?;
                self.expect(&Token::RParen)?;
                Ok(expr)
            }

            // List literal
            Some(Token::LBracket) => self.parse_list(),

            // Map literal
            Some(Token::LBrace) => self.parse_map(),

            // Error cases: a token that cannot start a primary is `mismatched` (`1 + +`, `?`: cel-go's parser tests);
            // when the next one could, `parse_unary` has already deleted it as ANTLR does (`extraneous input`). An
            // operator that can follow an operand is in ANTLR's resynchronization set there, so its recovery consumes
            // nothing and the enclosing rule goes on with the operator: the missing operand is an error node, and an
            // operand missing after the operator is a second error (`1 + +`, `in`, `?`: `mismatched input '<EOF>'`).
            Some(token) if follows_operand(&token) => {
                let error = self.mismatched(Some((token, span.clone())), PRIMARY_EXPECTED);
                self.macro_errors.push(error);
                Ok(Spanned::new(self.next_id(), Expr::Error, span))
            }
            Some(token) => Err(self.mismatched(Some((token, span)), PRIMARY_EXPECTED)),

            None => Err(self.mismatched(None, PRIMARY_EXPECTED)),
        }
    }

    /// Parse a list element: [?]expr
    fn parse_list_element(&mut self) -> Result<ListElement, ParseError> {
        let optional = self.match_token(&Token::Question);
        let expr = self.parse_expr()?;
        Ok(ListElement { expr, optional })
    }

    /// Parse a list literal: [[?]expr, [?]expr, ...]
    fn parse_list(&mut self) -> Result<SpannedExpr, ParseError> {
        let start = self.peek_span().start;
        self.expect(&Token::LBracket)?;

        let mut items = Vec::new();
        if !self.literal_start(&Token::RBracket, LIST_EXPECTED, starts_item)? {
            items.push(self.parse_list_element()?);
            while self.match_token(&Token::Comma) {
                if self.check(&Token::RBracket) {
                    break; // trailing comma
                }
                items.push(self.parse_list_element()?);
            }
        }

        let end_span = self.expect(&Token::RBracket)?;

        Ok(Spanned::new(
            self.next_id(),
            Expr::List(items),
            start..end_span.end,
        ))
    }

    /// Parse a map entry: [?]expr: expr
    fn parse_map_entry(&mut self) -> Result<MapEntry, ParseError> {
        let optional = self.match_token(&Token::Question);
        let key = self.parse_expr()?;
        self.expect(&Token::Colon)?;
        let value = self.parse_expr()?;
        Ok(MapEntry {
            key,
            value,
            optional,
        })
    }

    /// Parse a map literal: {[?]expr: expr, [?]expr: expr, ...}
    fn parse_map(&mut self) -> Result<SpannedExpr, ParseError> {
        let start = self.peek_span().start;
        self.expect(&Token::LBrace)?;

        let mut entries = Vec::new();
        if !self.literal_start(&Token::RBrace, MAP_EXPECTED, starts_item)? {
            entries.push(self.parse_map_entry()?);

            while self.match_token(&Token::Comma) {
                if self.check(&Token::RBrace) {
                    break; // trailing comma
                }
                entries.push(self.parse_map_entry()?);
            }
        }

        let end_span = self.expect(&Token::RBrace)?;

        Ok(Spanned::new(
            self.next_id(),
            Expr::Map(entries),
            start..end_span.end,
        ))
    }
}

/// Whether `token` is an operator that can follow an operand (`CEL.g4`'s binary and conditional operators).
fn follows_operand(token: &Token) -> bool {
    matches!(
        token,
        Token::Plus
            | Token::Star
            | Token::Slash
            | Token::Percent
            | Token::EqEq
            | Token::Ne
            | Token::Lt
            | Token::Le
            | Token::Gt
            | Token::Ge
            | Token::In
            | Token::And
            | Token::Or
            | Token::Question
    )
}

/// Whether `token` can start a list element or a map entry: an expression, or `?` before an optional one.
fn starts_item(token: &Token) -> bool {
    *token == Token::Question || starts_primary(token)
}

/// Whether `token` can start a message literal's field: its name, or `?` before an optional one.
fn starts_field(token: &Token) -> bool {
    matches!(
        token,
        Token::Question | Token::Ident(_) | Token::EscapedIdent(_) | Token::Reserved(_)
    )
}

/// Whether `token` can start a unary expression in cel-go's grammar: one of [`PRIMARY_EXPECTED`], or a token this
/// parser reads apart where cel-go's reads an `IDENTIFIER` or a number (a reserved word, a number out of range).
fn starts_unary(token: &Token) -> bool {
    starts_primary(token) || matches!(token, Token::Reserved(_) | Token::InvalidNumber(_))
}

/// Whether `token` is one of [`PRIMARY_EXPECTED`]: it can start a primary expression.
fn starts_primary(token: &Token) -> bool {
    matches!(
        token,
        Token::LBracket
            | Token::LBrace
            | Token::LParen
            | Token::Dot
            | Token::Minus
            | Token::Not
            | Token::True
            | Token::False
            | Token::Null
            | Token::Float(_)
            | Token::Int(_)
            | Token::IntOverflow(_)
            | Token::UInt(_)
            | Token::String(_)
            | Token::Bytes(_)
            | Token::Ident(_)
    )
}

/// Parse tokens into an AST with inline macro expansion using standard macros.
/// Returns the AST, any parse errors encountered, and a map of macro call IDs to original expressions.
/// Macro expansion errors (wrong arity, invalid arguments) are included in the errors list
/// and produce `Expr::Error` nodes in the AST to prevent misleading checker errors.
#[allow(dead_code)]
pub fn parse_tokens(tokens: &[SpannedToken]) -> (Option<SpannedExpr>, Vec<ParseError>, MacroCalls) {
    parse_tokens_with_macros(tokens, &MacroRegistry::standard(), false, Vec::new(), 0)
}

/// Parse tokens into an AST with inline macro expansion using a custom macro registry.
/// Returns the AST, any parse errors encountered, and a map of macro call IDs to original expressions.
/// Macro expansion errors (wrong arity, invalid arguments) are included in the errors list
/// and produce `Expr::Error` nodes in the AST to prevent misleading checker errors.
/// Errors are in the order of their place in the source, as cel-go lists them. `refuse_escaped`:
/// [`super::ParseOptions::refuse_escaped_identifiers`]. `lexed` are the lexer's errors, which are reported among the
/// parser's ([`super::lexer::lex_recovering`]); `input_len`, the length of the input, places `<EOF>`.
pub fn parse_tokens_with_macros(
    tokens: &[SpannedToken],
    macros: &MacroRegistry,
    refuse_escaped: bool,
    lexed: Vec<ParseError>,
    input_len: usize,
) -> (Option<SpannedExpr>, Vec<ParseError>, MacroCalls) {
    let mut parser = Parser::with_macros(tokens, macros);
    parser.refuse_escaped = refuse_escaped;
    parser.input_end = input_len;
    let (ast, mut errors, macro_calls) = match parser.parse_expr() {
        Ok(ast) => {
            let macro_calls = parser.take_macro_calls();
            let mut errors = parser.take_macro_errors();
            if !parser.at_end() {
                errors.push(parser.not_at_end());
            }
            (Some(ast), errors, macro_calls)
        }
        Err(e) => {
            let mut errors = parser.take_macro_errors();
            errors.push(e);
            (None, errors, MacroCalls::new())
        }
    };
    let mut errors = if lexed.is_empty() {
        errors
    } else {
        let mut all = lexed;
        all.append(&mut errors);
        all
    };
    // a few errors: a stable insertion sort by place (the standard library's sort would add its code to the modules)
    for i in 1..errors.len() {
        let mut j = i;
        while j > 0 && errors[j - 1].span.start > errors[j].span.start {
            errors.swap(j - 1, j);
            j -= 1;
        }
    }
    // at most SYNTAX_ERROR_LIMIT syntax errors; the next is cel-go's `More than 100 syntax errors`, and the last
    let mut syntax = 0;
    let too_many = errors.iter().position(|e| {
        syntax += usize::from(!e.plain);
        syntax > SYNTAX_ERROR_LIMIT
    });
    if let Some(at) = too_many {
        errors.truncate(at + 1);
        if let Some(last) = errors.last_mut() {
            last.message = format!("More than {SYNTAX_ERROR_LIMIT} syntax errors");
        }
        return (None, errors, MacroCalls::new());
    }
    (ast, errors, macro_calls)
}

#[cfg(test)]
mod tests {
    use super::super::lexer::lex;
    use super::*;
    use crate::types::{BinaryOp, UnaryOp};

    fn parse_expr(input: &str) -> SpannedExpr {
        let tokens = lex(input).unwrap();
        let (ast, errors, _macro_calls) = parse_tokens(&tokens);
        assert!(errors.is_empty(), "unexpected errors: {:?}", errors);
        ast.expect("expected AST")
    }

    fn parse_expr_node(input: &str) -> Expr {
        parse_expr(input).node
    }

    #[test]
    fn parse_literals() {
        assert_eq!(parse_expr_node("123"), Expr::Int(123));
        assert_eq!(parse_expr_node("123u"), Expr::UInt(123));
        assert_eq!(parse_expr_node("1.5"), Expr::Float(1.5));
        assert_eq!(
            parse_expr_node(r#""hello""#),
            Expr::String("hello".to_string())
        );
        assert_eq!(parse_expr_node("true"), Expr::Bool(true));
        assert_eq!(parse_expr_node("false"), Expr::Bool(false));
        assert_eq!(parse_expr_node("null"), Expr::Null);
    }

    #[test]
    fn parse_identifier() {
        assert_eq!(parse_expr_node("foo"), Expr::Ident("foo".to_string()));
    }

    #[test]
    fn parse_list() {
        if let Expr::List(items) = parse_expr_node("[1, 2, 3]") {
            assert_eq!(items.len(), 3);
            assert_eq!(items[0].expr.node, Expr::Int(1));
            assert_eq!(items[1].expr.node, Expr::Int(2));
            assert_eq!(items[2].expr.node, Expr::Int(3));
            assert!(!items[0].optional);
            assert!(!items[1].optional);
            assert!(!items[2].optional);
        } else {
            panic!("expected list");
        }
    }

    #[test]
    fn parse_map() {
        if let Expr::Map(entries) = parse_expr_node(r#"{"a": 1, "b": 2}"#) {
            assert_eq!(entries.len(), 2);
            assert_eq!(entries[0].key.node, Expr::String("a".to_string()));
            assert_eq!(entries[0].value.node, Expr::Int(1));
            assert!(!entries[0].optional);
        } else {
            panic!("expected map");
        }
    }

    #[test]
    fn parse_binary_ops() {
        if let Expr::Binary { op, left, right } = parse_expr_node("1 + 2") {
            assert_eq!(op, BinaryOp::Add);
            assert_eq!(left.node, Expr::Int(1));
            assert_eq!(right.node, Expr::Int(2));
        } else {
            panic!("expected binary");
        }
    }

    #[test]
    fn parse_precedence() {
        // 1 + 2 * 3 should parse as 1 + (2 * 3)
        if let Expr::Binary { op, left, right } = parse_expr_node("1 + 2 * 3") {
            assert_eq!(op, BinaryOp::Add);
            assert_eq!(left.node, Expr::Int(1));
            if let Expr::Binary {
                op: inner_op,
                left: inner_left,
                right: inner_right,
            } = &right.node
            {
                assert_eq!(*inner_op, BinaryOp::Mul);
                assert_eq!(inner_left.node, Expr::Int(2));
                assert_eq!(inner_right.node, Expr::Int(3));
            } else {
                panic!("expected inner binary");
            }
        } else {
            panic!("expected binary");
        }
    }

    #[test]
    fn parse_associativity() {
        // 1 - 2 - 3 should parse as (1 - 2) - 3 (left associative)
        if let Expr::Binary { op, left, right } = parse_expr_node("1 - 2 - 3") {
            assert_eq!(op, BinaryOp::Sub);
            assert_eq!(right.node, Expr::Int(3));
            if let Expr::Binary {
                op: inner_op,
                left: inner_left,
                right: inner_right,
            } = &left.node
            {
                assert_eq!(*inner_op, BinaryOp::Sub);
                assert_eq!(inner_left.node, Expr::Int(1));
                assert_eq!(inner_right.node, Expr::Int(2));
            } else {
                panic!("expected inner binary");
            }
        } else {
            panic!("expected binary");
        }
    }

    /// cel-go's grammar (`CEL.g4`: `literal: sign=MINUS? tok=NUM_INT`, `unary: (ops+='!')+ member | (ops+='-')+
    /// member`; `VisitLogicalNot`/`VisitNegate` drop an even run).
    #[test]
    fn unary_runs_and_negative_literals_as_cel_go() {
        assert_eq!(parse_expr_node("-1"), Expr::Int(-1));
        assert_eq!(parse_expr_node("- 1"), Expr::Int(-1));
        assert_eq!(parse_expr_node("-2.5"), Expr::Float(-2.5));
        assert_eq!(parse_expr_node("-9223372036854775808"), Expr::Int(i64::MIN));
        assert_eq!(parse_expr_node("--1"), Expr::Int(1));
        assert_eq!(parse_expr_node("!!x"), Expr::Ident("x".to_string()));
        assert_eq!(parse_expr_node("!!!!x"), Expr::Ident("x".to_string()));
        for (input, op) in [
            ("-(1)", UnaryOp::Neg),
            ("---1", UnaryOp::Neg),
            ("!!!x", UnaryOp::Not),
        ] {
            assert!(
                matches!(parse_expr_node(input), Expr::Unary { op: o, .. } if o == op),
                "{input}"
            );
        }
        // a member may be a negative literal: `!-1` is `!` of the literal
        assert!(matches!(
            parse_expr_node("!-1"),
            Expr::Unary { op: UnaryOp::Not, expr } if expr.node == Expr::Int(-1)
        ));
        // a uint has no sign: `-1u` negates it
        assert!(matches!(
            parse_expr_node("-1u"),
            Expr::Unary { op: UnaryOp::Neg, expr } if expr.node == Expr::UInt(1)
        ));
        // the literal is the receiver of what follows it
        assert!(matches!(
            parse_expr_node("-1.5.f()"),
            Expr::Call { expr, .. } if matches!(&expr.node, Expr::Member { expr, .. } if expr.node == Expr::Float(-1.5))
        ));
        let error = |input: &str| {
            let tokens = lex(input).unwrap();
            let (_, errors, _) = parse_tokens(&tokens);
            errors.into_iter().next().expect("an error")
        };
        for input in ["-9223372036854775809", "9223372036854775808"] {
            let e = error(input);
            assert_eq!(
                (e.message.as_str(), e.span.start, e.plain),
                ("invalid int literal", 0, true),
                "{input}"
            );
        }
        let e = error("-1.99e90000009");
        assert_eq!(
            (e.message.as_str(), e.span.start),
            ("invalid double literal", 0)
        );
    }

    #[test]
    fn parse_unary() {
        if let Expr::Unary { op, expr } = parse_expr_node("-x") {
            assert_eq!(op, UnaryOp::Neg);
            assert_eq!(expr.node, Expr::Ident("x".to_string()));
        } else {
            panic!("expected unary");
        }
    }

    #[test]
    fn parse_member_access() {
        if let Expr::Member {
            expr,
            field,
            optional,
        } = parse_expr_node("a.b")
        {
            assert_eq!(expr.node, Expr::Ident("a".to_string()));
            assert_eq!(field, "b");
            assert!(!optional);
        } else {
            panic!("expected member access");
        }
    }

    #[test]
    fn parse_index() {
        if let Expr::Index {
            expr,
            index,
            optional,
        } = parse_expr_node("a[0]")
        {
            assert_eq!(expr.node, Expr::Ident("a".to_string()));
            assert_eq!(index.node, Expr::Int(0));
            assert!(!optional);
        } else {
            panic!("expected index");
        }
    }

    #[test]
    fn parse_call() {
        if let Expr::Call { expr, args } = parse_expr_node("f(x, y)") {
            assert_eq!(expr.node, Expr::Ident("f".to_string()));
            assert_eq!(args.len(), 2);
            assert_eq!(args[0].node, Expr::Ident("x".to_string()));
            assert_eq!(args[1].node, Expr::Ident("y".to_string()));
        } else {
            panic!("expected call");
        }
    }

    #[test]
    fn parse_ternary() {
        if let Expr::Ternary {
            cond,
            then_expr,
            else_expr,
        } = parse_expr_node("a ? b : c")
        {
            assert_eq!(cond.node, Expr::Ident("a".to_string()));
            assert_eq!(then_expr.node, Expr::Ident("b".to_string()));
            assert_eq!(else_expr.node, Expr::Ident("c".to_string()));
        } else {
            panic!("expected ternary");
        }
    }

    #[test]
    fn parse_chained_member_access() {
        if let Expr::Member { expr, field, .. } = parse_expr_node("a.b.c") {
            assert_eq!(field, "c");
            if let Expr::Member {
                expr: inner_expr,
                field: inner_field,
                ..
            } = &expr.node
            {
                assert_eq!(inner_expr.node, Expr::Ident("a".to_string()));
                assert_eq!(inner_field, "b");
            } else {
                panic!("expected inner member");
            }
        } else {
            panic!("expected member access");
        }
    }

    // === ID Assignment Tests ===

    #[test]
    fn ids_start_at_one() {
        let ast = parse_expr("123");
        assert_eq!(ast.id, 1);
    }

    #[test]
    fn ids_are_unique_in_expression() {
        let ast = parse_expr("1 + 2");

        // Collect all IDs from the expression tree
        fn collect_ids(expr: &SpannedExpr, ids: &mut Vec<i64>) {
            ids.push(expr.id);
            match &expr.node {
                Expr::Binary { left, right, .. } => {
                    collect_ids(left, ids);
                    collect_ids(right, ids);
                }
                Expr::Unary { expr, .. } => {
                    collect_ids(expr, ids);
                }
                Expr::List(elements) => {
                    for e in elements {
                        collect_ids(&e.expr, ids);
                    }
                }
                _ => {}
            }
        }

        let mut ids = Vec::new();
        collect_ids(&ast, &mut ids);

        // All IDs should be unique
        let mut sorted = ids.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(ids.len(), sorted.len(), "IDs should be unique");
    }

    #[test]
    fn ids_reset_per_parse() {
        // First parse
        let ast1 = parse_expr("123");

        // Second parse (separate call)
        let ast2 = parse_expr("456");

        // Both should start at 1 since each parse gets a fresh counter
        assert_eq!(ast1.id, 1);
        assert_eq!(ast2.id, 1);
    }

    #[test]
    fn ids_are_depth_first() {
        // For "1 + 2", the parser creates nodes in this order:
        // 1. Parse left operand (1) -> ID 1
        // 2. Parse right operand (2) -> ID 2
        // 3. Create binary node -> ID 3
        let ast = parse_expr("1 + 2");

        if let Expr::Binary { left, right, .. } = &ast.node {
            // Child nodes should have lower IDs than parent
            assert!(
                left.id < ast.id,
                "left child should have lower ID than parent"
            );
            assert!(
                right.id < ast.id,
                "right child should have lower ID than parent"
            );
            // Left should be parsed before right
            assert!(
                left.id < right.id,
                "left child should have lower ID than right child"
            );
        } else {
            panic!("expected binary");
        }
    }

    // === Two-Variable Comprehension Macro Tests ===

    #[test]
    fn expand_exists_3arg() {
        let ast = parse_expr("[1,2].exists(i, v, i < v)");
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "i");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn expand_all_3arg() {
        let ast = parse_expr("[1,2,3].all(i, v, v > 0)");
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "i");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn expand_exists_one_3arg() {
        let ast = parse_expr("[7].exists_one(i, v, i == 0 && v == 7)");
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "i");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn expand_transform_list_3arg() {
        let ast = parse_expr("[2,4,6].transformList(i, v, v / 2)");
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "i");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn expand_transform_list_4arg() {
        let ast = parse_expr("[2,4,6].transformList(i, v, i != 1, v / 2)");
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "i");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn expand_transform_map_3arg() {
        let ast = parse_expr(r#"{"foo": "bar"}.transformMap(k, v, k + v)"#);
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "k");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn expand_transform_map_4arg() {
        let ast = parse_expr(r#"{"foo": "bar"}.transformMap(k, v, k == "foo", k + v)"#);
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "k");
            assert_eq!(comp.iter_var2, "v");
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn exists_2arg_still_works() {
        // Ensure 2-arg form still works
        let ast = parse_expr("[1,2].exists(x, x > 0)");
        if let Expr::Comprehension(comp) = &ast.node {
            assert_eq!(comp.iter_var, "x");
            assert!(
                comp.iter_var2.is_empty(),
                "2-arg form should have empty iter_var2"
            );
        } else {
            panic!("expected comprehension, got {:?}", ast.node);
        }
    }

    #[test]
    fn a_macro_name_with_another_number_of_arguments_is_an_ordinary_call() {
        // as cel-go reads it: no macro takes that many arguments, so the checker reports the call
        for input in [
            "[1,2].exists(x)",
            "has()",
            "has(a.b, c.d)",
            "[1].all()",
            "[1].filter(x, y, z)",
        ] {
            let tokens = lex(input).unwrap();
            let (ast, errors, _) = parse_tokens(&tokens);
            assert!(errors.is_empty(), "{input}: {errors:?}");
            assert!(matches!(ast.unwrap().node, Expr::Call { .. }), "{input}");
        }
    }

    #[test]
    fn parse_with_no_macros() {
        let tokens = lex("[1,2].all(x, x > 0)").unwrap();
        let (ast, errors, _) = parse_tokens_with_macros(&tokens, &MacroRegistry::new(), false, Vec::new(), 0);
        assert!(errors.is_empty());
        let ast = ast.unwrap();
        // Without macros, all() should be a regular call
        if let Expr::Call { .. } = &ast.node {
            // Expected
        } else {
            panic!("expected Call without macros, got {:?}", ast.node);
        }
    }

    #[test]
    fn parse_with_custom_macros() {
        use super::super::macros::{ArgCount, Macro, MacroContext, MacroExpansion, MacroStyle};
        use crate::types::Span;

        fn custom_has_expander(
            ctx: &mut MacroContext,
            span: Span,
            _receiver: Option<SpannedExpr>,
            args: Vec<SpannedExpr>,
        ) -> MacroExpansion {
            let arg = args.into_iter().next().unwrap();
            match arg.node {
                Expr::Member { expr, field, .. } => MacroExpansion::Expanded(Spanned::new(
                    ctx.next_id(),
                    Expr::MemberTestOnly { expr, field },
                    span,
                )),
                _ => MacroExpansion::Error("has() requires member expression".to_string()),
            }
        }

        // Create a registry with only 'has' macro
        let mut registry = MacroRegistry::new();
        registry.register(Macro::new(
            "has",
            MacroStyle::Global,
            ArgCount::Exact(1),
            custom_has_expander,
        ));

        // has() should expand
        let tokens = lex("has(m.x)").unwrap();
        let (ast, errors, _) = parse_tokens_with_macros(&tokens, &registry, false, Vec::new(), 0);
        assert!(errors.is_empty());
        let ast = ast.unwrap();
        assert!(matches!(ast.node, Expr::MemberTestOnly { .. }));

        // all() should NOT expand (not in our custom registry)
        let tokens = lex("[1,2].all(x, x > 0)").unwrap();
        let (ast, errors, _) = parse_tokens_with_macros(&tokens, &registry, false, Vec::new(), 0);
        assert!(errors.is_empty());
        let ast = ast.unwrap();
        assert!(matches!(ast.node, Expr::Call { .. }));
    }

    #[test]
    fn macro_has_non_field_arg_gives_expansion_error() {
        // cel-go's words, once, where the argument is
        let tokens = lex("has(1 + 2)").unwrap();
        let (ast, errors, _) = parse_tokens(&tokens);
        assert!(matches!(ast.unwrap().node, Expr::Error));
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].message, "invalid argument to has() macro");
        assert_eq!(errors[0].span.start, 4);
        assert!(errors[0].plain);
    }

    #[test]
    fn macro_errors_do_not_produce_undeclared_reference() {
        // a macro's own error, not an "undeclared reference" one
        let cases = vec!["has(1 + 2)", "[1].all(1, true)", "cel.bind(1, 2, 3)"];
        for input in cases {
            let tokens = lex(input).unwrap();
            let (_ast, errors, _) = parse_tokens(&tokens);
            assert!(
                !errors.iter().any(|e| e.message.contains("undeclared")),
                "input '{}' should not produce 'undeclared reference' error, got: {:?}",
                input,
                errors
            );
        }
    }
}
