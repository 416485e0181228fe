import type { RouterContext } from '../core/router-context.js'
import type { CRUDEmbed } from '../options/crud-embed.js'
import { routerRefs } from '../schema/router-refs.js'
import type { ArrayItems } from '../store/store.js'
import { buildChildModel, type ChildModel } from './child-model.js'

/** An embed resolved at registration: its child model and the parent's array it lives in. */
export interface EmbedPlan {
  readonly embed: CRUDEmbed
  readonly child: ChildModel
  readonly items: ArrayItems
}

export function planEmbed(embed: CRUDEmbed, context: RouterContext): EmbedPlan {
  const child = buildChildModel(embed.model, embed.modelOut, context.listSpec, routerRefs(context.options))
  return { embed, child, items: context.store.arrayItems(embed.embedName, child.typed) }
}
