/**
 * A form on its own (outside the console): what `openForm` mounts for a create or update
 * command run on a terminal without its required flags.
 */
import { Box, Text, useApp, useInput, useStdout } from 'ink';
import { useEffect, useRef, useState } from 'react';
import { FormView } from '../components/FormView.js';
import { formKey, formValues, missingRequired, typedProblems, type FormState } from '../form-model.js';
import { useStore } from '../hooks/useStore.js';
import { useTerminalSize } from '../hooks/useTerminalSize.js';
import { KeyReader } from '../keys.js';
import { createStore } from '../state/store.js';

export interface FormAppProps {
  form: FormState;
  /** Problems of the values by field ('' for the whole form); empty when they are good. */
  validate?: (values: Record<string, unknown>) => Record<string, string>;
  /** The values, or undefined when cancelled (Esc) or interrupted (Ctrl-C: `interrupted` true). */
  onDone: (values: Record<string, unknown> | undefined, interrupted?: boolean) => void;
  /** Ctrl-Z: give the terminal to the shell until `fg`, then call `repaint` (openForm). */
  onSuspend?: (repaint: () => void) => void;
}

export function FormApp({ form, validate, onDone, onSuspend }: FormAppProps) {
  const store = useRef(createStore((_s: FormState, next: FormState) => next, form)).current;
  const state = useStore(store);
  const { exit } = useApp();
  const size = useTerminalSize();
  // The last frame is empty, so the form leaves nothing behind on the terminal.
  const [finished, setFinished] = useState(false);
  useEffect(() => {
    if (finished) exit();
  }, [finished, exit]);
  const done = (v: Record<string, unknown> | undefined, interrupted?: boolean) => {
    onDone(v, interrupted);
    setFinished(true);
  };
  // Ink's write of nothing draws the whole frame again (see ConsoleApp).
  const { write } = useStdout();
  const reader = useRef(new KeyReader()).current;
  useInput((input, key) => {
    if (finished) return;
    for (const k of reader.read(input, key)) {
      if (k.ctrl && k.input === 'c') return done(undefined, true);
      if (k.ctrl && k.input === 'z') {
        onSuspend?.(() => write(''));
        continue;
      }
      const r = formKey(store.getState(), k);
      if (r.cancel) return done(undefined);
      if (r.submit) {
        const f = store.getState();
        const values = formValues(f);
        const errors = { ...(validate?.(values) ?? {}), ...typedProblems(f), ...missingRequired(f) };
        const bad = Object.entries(errors).filter(([, v]) => v);
        if (!bad.length) return done(values);
        const first = f.fields.findIndex((x) => errors[x.name]);
        store.dispatch({ ...f, errors, focus: first >= 0 ? first : f.focus });
        continue;
      }
      store.dispatch(r.form);
    }
  });
  if (finished) return null;
  return (
    <Box flexDirection="column" width={size.columns}>
      <FormView form={state} height={Math.max(5, size.rows - 3)} width={size.columns} />
      <Text dimColor wrap="truncate-end">
        Tab/↓ next field Shift-Tab/↑ previous ←→ choose a value Enter submit Esc cancel (nothing is sent)
      </Text>
    </Box>
  );
}
