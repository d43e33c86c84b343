/** Everything the mod area serves: lowball offers, data submission, player-scoped data and the /modsocket channel. */
import type { FastifyInstance } from 'fastify';
import { dataRoutes } from '../api/data.ts';
import { lowballRoutes } from '../api/lowball.ts';
import { playerRoutes } from '../api/player.ts';
import { modSocketRoutes } from './socket.ts';

export async function modAreaRoutes(app: FastifyInstance) {
  await app.register(lowballRoutes);
  await app.register(dataRoutes);
  await app.register(playerRoutes);
  await app.register(modSocketRoutes);
}
