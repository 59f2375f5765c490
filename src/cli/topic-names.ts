/** The help topics (`subctl help <topic>`), apart from their text so that start-up loads only the names. */
export const TOPIC_NAMES = ['environment', 'exit-codes', 'output', 'bulk'] as const;
export type TopicName = (typeof TOPIC_NAMES)[number];
