/**
 * The viewer's cards, in the order the page shows them (beside the messages and the request). A card is one file of
 * this folder (card.ts says what it holds); registering it is its line here. test/house/cards.test.ts fails when a
 * card of this folder is not registered, or is registered without a sentence in each language or without a drawing.
 */
import type { Card } from './card.js';
import { compactCard } from './compact.js';
import { replyCard } from './reply.js';
import { stateCard } from './state.js';
import { toolCard } from './tool.js';

export const CARDS: ReadonlyArray<Card<unknown>> = [replyCard, toolCard, compactCard, stateCard];
