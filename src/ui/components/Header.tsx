/**
 * The line always on top: profile, base address (or SANDBOX), the signed-in user and role, and
 * the read-only marker.
 */
import { Box, Text } from 'ink';
import { memo } from 'react';
import { drawableLine } from '../drawable.js';
import type { Session } from '../session.js';

export const Header = memo(function Header({ session, readOnly, width }: { session: Session; readOnly: boolean; width: number }) {
  const who = session.user ? `${session.user}${session.role ? ` (${session.role})` : ''}` : 'user unknown';
  return (
    <Box width={width}>
      <Text wrap="truncate-end">
        <Text bold>subctl</Text>
        <Text dimColor> │ profile </Text>
        <Text bold>{drawableLine(session.profile)}</Text>
        <Text dimColor> │ </Text>
        {session.target === 'SANDBOX' ? (
          <Text color="yellow" bold>
            SANDBOX
          </Text>
        ) : (
          <Text>{drawableLine(session.target)}</Text>
        )}
        <Text dimColor> │ </Text>
        <Text>{drawableLine(who)}</Text>
        {readOnly ? (
          <Text color="cyan" bold>
            {' │ READ-ONLY'}
          </Text>
        ) : null}
      </Text>
    </Box>
  );
});
