//! The reverse of one recorded operation, and of a branch.

use super::*;

impl Gen<'_> {
    pub(super) fn op(&mut self, op: &crate::record::Op, code: &mut TokenStream) {
        let Some(adj) = self.bound_total(op.out, code) else {
            return; // nothing reads this value: its adjoint is zero
        };
        match &op.kind {
            OpKind::Rule(name) => {
                let k = op.inputs.len();
                // `x.sin()`'s slope is `x.cos()`, and the other way round:
                // the one the function made, where the reverse can read it
                let sibling = self.trig_sibling(op, name).map(|s| self.read_store(s));
                // `a / b` with both sides tracked: one division, `t = adj / b`,
                // gives both slopes, `t` and `-(t * y)` (a division is the
                // slowest step of most reverses, and often on their chain)
                let quotient = match (*name, &op.inputs[..]) {
                    ("div", [Operand::Active(_), Operand::Active(_)]) => {
                        let b = self.operand(&op.inputs[1]);
                        let t = self.names.fresh("q");
                        code.extend([quote!(let #t = #adj / #b;)]);
                        Some(t)
                    }
                    _ => None,
                };
                for (i, input) in op.inputs.iter().enumerate() {
                    let Operand::Active(id) = input else { continue };
                    let reads = crate::rules::reads(name, i);
                    // `a ± b`, `-a` and a `mul_add`'s addend pass the
                    // adjoint on, negated for what is subtracted
                    let part = match (crate::rules::passes(name, i), *name, i, &sibling) {
                        (Some(crate::rules::Pass::Same), ..) => {
                            self.contribute(*id, adj.clone(), code);
                            continue;
                        }
                        (Some(crate::rules::Pass::Negated), ..) => quote!(-#adj),
                        // products and quotients inline, as the runtime's
                        // pullbacks write them: no call for the compiler to
                        // resolve, and fast in unoptimised builds
                        (None, "div", 0, _) if quotient.is_some() => quote!(#quotient),
                        (None, "div", 1, _) if quotient.is_some() => {
                            let y = self.read_store(op.out);
                            quote!(-(#quotient * #y))
                        }
                        // a product with the literal zero has no slope
                        // (`pose[a][k] * 0.0` of a rotation written out)
                        (None, "mul", 0 | 1, _) if !self.plain && is_zero(&op.inputs[1 - i]) => {
                            continue;
                        }
                        (None, "mul", 0 | 1, _) | (None, "div", 0, _) => {
                            let other = self.operand(&op.inputs[1 - i]);
                            if *name == "mul" {
                                quote!(#adj * #other)
                            } else {
                                quote!(#adj / #other)
                            }
                        }
                        (None, "sin", 0, Some(cos)) => quote!(#adj * #cos),
                        (None, "cos", 0, Some(sin)) => quote!(-(#adj * #sin)),
                        // `1.0 / b` (a sigmoid's, a reciprocal): `y = 1 / b`,
                        // so `-adj · y / b` is `-adj · y · y`, a product where
                        // the general rule divides
                        (None, "div", _, _) if is_one(&op.inputs[0]) => {
                            let y = self.read_store(op.out);
                            quote!(-(#adj * #y) * #y)
                        }
                        (None, "div", _, _) => {
                            let b = self.operand(&op.inputs[1]);
                            let y = self.read_store(op.out);
                            quote!(-(#adj * #y) / #b)
                        }
                        _ => {
                            // the positions the pullback reads, the others
                            // filled with the adjoint (same type, ignored)
                            let mut args = Vec::with_capacity(k + 1);
                            for (p, input) in op.inputs.iter().enumerate() {
                                args.push(if reads.contains(&p) {
                                    let arg = self.operand(input);
                                    // a constant is read as the rule's type
                                    // (`&f64` → `f64`)
                                    match input {
                                        Operand::Stored(_) => quote!(::mica::__private::val(#arg)),
                                        _ => arg,
                                    }
                                } else {
                                    adj.to_token_stream()
                                });
                            }
                            args.push(if reads.contains(&k) {
                                self.read_store(op.out).into_token_stream()
                            } else {
                                adj.to_token_stream()
                            });
                            let rule = quote::format_ident!("{}_d{}", name, i);
                            quote!(::mica::__private::rules::#rule(#(#args,)* #adj))
                        }
                    };
                    self.contribute(*id, part, code);
                }
            }
            OpKind::Call(_) | OpKind::Method { .. } => {
                let (args, slots, parts, after) = self.call_slots(&op.inputs, &op.spans, code);
                let call = |callee: TokenStream| quote!(#callee(#(#args,)* #adj, #(#slots),*););
                match &op.kind {
                    OpKind::Call(adapter) => code.extend([call(adapter.clone())]),
                    // the receiver's borrow: `Some` wherever the call ran
                    OpKind::Method { object, adapter } => {
                        let store = self.read_store(*object);
                        let borrow = self.names.fresh("o");
                        let call = call(quote!(#borrow.#adapter));
                        code.extend([quote! {
                            if let ::core::option::Option::Some(#borrow) = #store { #call }
                        }]);
                    }
                    _ => {}
                }
                code.extend([after]);
                for (id, slot) in parts {
                    self.contribute(id, slot, code);
                }
            }
            OpKind::Read { array, indices } => match self.carried_reads.get(&op.out) {
                Some(register) => {
                    self.carried_used.insert(register.to_string());
                    code.extend([quote!(#register += #adj;)])
                }
                None => {
                    let element = self.element(*array, indices);
                    code.extend([quote!(#element += #adj;)]);
                }
            },
        }
    }

    /// The arguments of a call to a tape function as the reverse passes
    /// them, a slot for each (`NoSlot` for a constant), the slots to add
    /// into recorded values after the call, and what to add into arrays
    /// passed twice.
    #[allow(clippy::type_complexity)]
    fn call_slots(
        &mut self,
        inputs: &[Operand],
        spans: &[Span],
        code: &mut TokenStream,
    ) -> (
        Vec<TokenStream>,
        Vec<TokenStream>,
        Vec<(ValueId, Ident)>,
        TokenStream,
    ) {
        // each argument where the user wrote it, so an error about
        // it points there (`outside.rs`)
        let args: Vec<TokenStream> = inputs
            .iter()
            .enumerate()
            .map(|(i, input)| {
                let arg = self.operand(input);
                match spans.get(i) {
                    Some(span) => located_at(arg, *span),
                    None => arg,
                }
            })
            .collect();
        // joint mode: the callee's adjoint re-runs its own forward
        // sweep and adds its slopes into one slot per argument; each
        // slot carries its argument's span, so a type error about it
        // (a recorded value passed to an untracked parameter) points
        // at the user's argument
        let mut slots = Vec::new();
        let mut parts = Vec::new();
        // an array passed twice: the second slot is a scratch
        // buffer, added into the array's buffer after the call
        let mut passed = Vec::new();
        let mut after = TokenStream::new();
        for (i, (input, arg)) in inputs.iter().zip(&args).enumerate() {
            let span = spans.get(i).copied().unwrap_or_else(Span::call_site);
            match input {
                Operand::Active(id) => {
                    let slot = self.names.fresh("d");
                    code.extend([quote!(let mut #slot = ::mica::__private::zeros_like(&#arg);)]);
                    let mut at = slot.clone();
                    at.set_span(slot.span().located_at(span));
                    slots.push(quote_spanned!(span=> &mut #at));
                    parts.push((*id, slot));
                }
                // the callee adds straight into the array's buffer
                Operand::Array { array, prefix, .. } => {
                    let acc = self.record.arrays[*array].acc.clone();
                    let prefix: Vec<TokenStream> = prefix.iter().map(|i| self.operand(i)).collect();
                    if passed.contains(array) {
                        let scratch = self.names.fresh("d");
                        code.extend([quote! {
                            let mut #scratch = ::mica::__private::zeros_like(&#arg);
                        }]);
                        slots.push(quote_spanned!(span=> &mut #scratch));
                        after.extend([quote! {
                            ::mica::__private::add_into(&mut #acc #([#prefix])* [..], &#scratch[..]);
                        }]);
                    } else if prefix.is_empty() {
                        // the buffer is as long as the longest value the
                        // array held: the slot, as long as this one
                        passed.push(*array);
                        slots.push(
                            quote_spanned!(span=> ::mica::__private::fitted(&mut #acc, &#arg)),
                        );
                    } else {
                        passed.push(*array);
                        slots.push(quote_spanned!(span=> &mut #acc #([#prefix])*));
                    }
                }
                _ => slots.push(quote_spanned!(span=> ::mica::__private::NoSlot)),
            }
        }
        (args, slots, parts, after)
    }

    /// `array = f(args…)` of a function returning an array: the callee's
    /// seeded twin, seeded with the array's adjoint, adds into the
    /// arguments' slots; the array's old elements reach nothing before.
    pub(super) fn call_into(&mut self, c: &crate::record::CallInto, code: &mut TokenStream) {
        let (args, slots, parts, after) = self.call_slots(&c.inputs, &c.spans, code);
        let acc = self.record.arrays[c.array].acc.clone();
        let adapter = &c.adapter;
        // a tuple's seed: its scalars' adjoints, zero for those not read
        let seed = match &c.tuple {
            None => quote!(&#acc),
            Some(elements) => {
                let items = elements.iter().map(|e| match e {
                    Some(k) => quote!(#acc[#k]),
                    None => quote!(::core::default::Default::default()),
                });
                quote!((#(#items,)*))
            }
        };
        code.extend([quote! {
            #adapter(#(#args,)* #seed, ::mica::__private::One::one(), #(#slots,)* ::mica::__private::NoSlot);
            #after
            ::mica::__private::clear(&mut #acc[..]);
        }]);
        for (id, slot) in parts {
            self.contribute(id, slot, code);
        }
    }

    /// A branch: the recorded arm, walked.
    pub(super) fn branch(&mut self, b: &Branch, code: &mut TokenStream) {
        let mut merged = Vec::new();
        for merge in &b.merges {
            if let Some(adj) = self.bound_total(merge.out, code) {
                merged.push((merge, adj));
            }
        }
        let mut arms = Vec::new();
        for (k, (region, steps)) in b.arms.iter().enumerate() {
            let seeds = merged
                .iter()
                .filter_map(|(merge, adj)| match merge.per_arm.get(k) {
                    Some(Val::Active(v)) => Some((*v, adj.to_token_stream())),
                    _ => None,
                })
                .collect();
            // a loop in an arm may not run: its range is evaluated where
            // the arm runs it, not before the loops around the branch
            self.nest.push(Level::Stop);
            let arm = self.region(steps, *region, seeds);
            self.nest.pop();
            if !arm.is_empty() {
                arms.push(quote!(#k => { #arm }));
            }
        }
        if !arms.is_empty() {
            let flag = self.read_store(b.flag);
            code.extend([quote!(match #flag { #(#arms)* _ => {} })]);
        }
    }
}

/// `tokens` with each token's location moved to `span`'s, its hygiene kept.
fn located_at(tokens: TokenStream, span: Span) -> TokenStream {
    tokens
        .into_iter()
        .map(|mut tree| {
            tree.set_span(tree.span().located_at(span));
            tree
        })
        .collect()
}

/// Whether `operand` is the literal one (`1.0`, `1.0_f64`, `1f32`).
fn is_one(operand: &Operand) -> bool {
    literal_value(operand) == Some(1.0)
}

/// Whether `operand` is the literal zero (`0.0`, `0.0_f64`, `0f32`).
fn is_zero(operand: &Operand) -> bool {
    literal_value(operand) == Some(0.0)
}

/// The value of a literal operand.
fn literal_value(operand: &Operand) -> Option<f64> {
    let Operand::Const(tokens) = operand else {
        return None;
    };
    match syn::parse2::<syn::Lit>(tokens.clone()) {
        Ok(syn::Lit::Float(f)) => f.base10_parse::<f64>().ok(),
        Ok(syn::Lit::Int(i)) => i.base10_parse::<u64>().ok().map(|v| v as f64),
        _ => None,
    }
}
