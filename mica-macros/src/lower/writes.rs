//! Element writes: `h[i] = v`, `h[i] op= v` on an array made inside the
//! sweep, or a constant into an array that is not recorded.

use super::*;
use crate::facts::places::index_chain;

impl Sweep<'_> {
    /// `h[i] = v`, `h[i][j] += v` on an array made inside the sweep.
    pub(super) fn lower_array_write(
        &mut self,
        target: &syn::ExprIndex,
        op: Option<&syn::BinOp>,
        value: &Expr,
        out: &mut TokenStream,
    ) -> syn::Result<()> {
        // h[i][j]: the base and the indices, outermost first
        let (base, indices_exprs) = index_chain(target);
        let lowered = self.lower_expr(base, out)?;
        let Val::Array { array, prefix } = lowered.val else {
            // an array that is not recorded may take a constant (a slope-0
            // value); the write is kept as the user wrote it
            let value = self.lower_expr(value, out)?;
            if value.val.is_active() {
                return Err(syn::Error::new_spanned(
                    base,
                    "a recorded value is written into an array whose elements are not recorded: the lines after its `let` write no recorded value into it where Mica can see; write that value in one of them",
                ));
            }
            let (fwd, place) = (value.fwd, target);
            match op {
                Some(op) => out.extend([quote!(#place #op #fwd;)]),
                None => out.extend([quote!(#place = #fwd;)]),
            }
            return Ok(());
        };
        if self.arrays[array].local.is_none() {
            let place = if self.function_form {
                "the function body"
            } else {
                "the window"
            };
            return Err(syn::Error::new_spanned(
                base,
                format!("a tracked array cannot be written to; copy what you need into an array made in {place}"),
            ));
        }
        // Rust evaluates the value first, then the place it goes to (and,
        // for `h[i] op= v` on floats, the element read): a value whose
        // block changes `i` or `h` writes where the changed names say
        let additive = matches!(
            op,
            Some(syn::BinOp::AddAssign(_) | syn::BinOp::SubAssign(_))
        );
        let rule = match op {
            Some(op) if !additive => Some(crate::rules::binary(op).ok_or_else(|| {
                syn::Error::new_spanned(op, "this operator is outside the recorded vocabulary")
            })?),
            _ => None,
        };
        let (right, right_fwd) = self.lower_operand(value, out)?;
        let mut indices = prefix;
        let mut index_fwds = Vec::new();
        for index in indices_exprs {
            let (operand, fwd) = self.lower_subscript(index, out)?;
            indices.push(operand);
            index_fwds.push(fwd);
        }
        if indices.len() != self.arrays[array].rank {
            return Err(syn::Error::new_spanned(
                target,
                "write one element at a time: `h[i] = …`",
            ));
        }
        let base_fwd = &lowered.fwd;
        let place = quote!(#base_fwd #([#index_fwds])*);
        // `h[i] += v` / `h[i] -= v`: the element's adjoint passes through
        // unchanged, and `v` receives it (negated for `-=`)
        if let (Some(op), true) = (op, additive) {
            out.extend([quote!(#place #op #right_fwd;)]);
            self.push_step(Step::Increment {
                array,
                indices,
                value: right,
                negate: matches!(op, syn::BinOp::SubAssign(_)),
            });
            return Ok(());
        }
        let (operand, fwd) = match (op, rule) {
            (Some(op), Some(rule)) => {
                self.new_op(
                    OpKind::Read {
                        array,
                        indices: indices.clone(),
                    },
                    Vec::new(),
                    place.clone(),
                    out,
                );
                let old = self.values.len() - 1;
                let old_store = self.values[old].store.clone();
                let bin = compound_to_binary(op);
                let lowered = self.new_op(
                    OpKind::Rule(rule),
                    vec![Operand::Active(old), right],
                    quote!(#old_store #bin #right_fwd),
                    out,
                );
                (Operand::Active(self.values.len() - 1), lowered.fwd)
            }
            _ => (right, right_fwd),
        };
        out.extend([quote!(#place = #fwd;)]);
        if let Operand::Active(id) = &operand {
            self.wrote = Some((target.clone(), *id, place.clone()));
        }
        self.push_step(Step::Write {
            array,
            indices,
            value: operand,
        });
        Ok(())
    }
}
